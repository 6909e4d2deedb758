/**
 * Files of Object records: upload (streamed to the file store), metadata, download and delete. A file row exists
 * only for stored bytes: rows are written after the upload ends, in one transaction, and the bytes are removed
 * when that transaction fails. An upload for a file field follows the field's rules and adds the new file ids
 * to the record's value of that field (a row update, with its event).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError } from '../../../lib/errors.js';
import { DataField } from '../data-field.entity.js';
import { RecordFile } from './record-file.entity.js';
import { User } from '../../accounts/user.entity.js';
import type { DataTable } from '../data-table.entity.js';
import { fieldModels, query, sqlOf } from '../table-lookups.js';
import { qualified, rowTableName } from '../ddl.js';
import { recordExists, requireRecord } from '../record-activities.service.js';
import { resolveField } from '../row-values.js';
import { getRow, updateRow } from '../rows.service.js';
import type { FieldModel } from '../types.js';
import type { ByteRange, FileStore, ReceiveFiles } from './file-store.js';

/** A file's metadata as the API answers it. */
export interface FileView {
  id: number;
  object: string;
  rowId: string;
  fieldId: number | null;
  name: string;
  contentType: string;
  size: number;
  uploadedBy: { id: number; email: string } | null;
  createdAt: string;
}

export function fileView(file: RecordFile): FileView {
  return {
    id: file.id,
    object: file.table.name,
    rowId: file.rowId,
    fieldId: file.field?.id ?? null,
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    uploadedBy: file.uploadedBy ? { id: file.uploadedBy.id, email: file.uploadedBy.email } : null,
    createdAt: file.createdAt.toISOString(),
  };
}

/** The file field an upload names (by name or id), or 400. */
async function fileFieldOf(em: EntityManager, table: DataTable, ref: string): Promise<FieldModel> {
  const field = resolveField(await fieldModels(em, table), ref);
  if (!field || field.type !== 'file') {
    throw new BadRequestError(`"${ref}" is not a file field of "${table.name}"`, [
      { code: 'not_found', path: 'query.field', message: 'is not a file field of this Object' },
    ]);
  }
  return field;
}

/** Replaces the record's value of a file field through the row service, so the change is validated and evented. */
async function setFieldFiles(
  em: EntityManager,
  table: DataTable,
  rowId: string,
  field: FieldModel,
  change: (ids: string[]) => string[],
): Promise<void> {
  const fields = await fieldModels(em, table);
  const row = await getRow(em, { table, fields }, rowId);
  const current = (row.data[field.name] as string[] | undefined) ?? [];
  const next = change(current);
  if (next.length !== current.length || next.some((id, i) => id !== current[i])) {
    await updateRow(em, { table, fields }, rowId, { values: { [field.name]: next } });
  }
}

export interface UploadOptions {
  /** File field (name or id) the files are for: its rules apply and its value lists them. */
  field?: string;
  userId: number;
}

/** Stores every file of the upload and answers their metadata; all or nothing. */
export async function uploadFiles(
  em: EntityManager,
  store: FileStore,
  table: DataTable,
  rowId: string,
  receive: ReceiveFiles,
  options: UploadOptions,
): Promise<FileView[]> {
  await requireRecord(em, table, rowId);
  const field = options.field !== undefined ? await fileFieldOf(em, table, options.field) : undefined;
  const rules = {
    allowedFileTypes: field?.metadata.allowedFileTypes as string[] | undefined,
    maxFileSize: field?.metadata.maxFileSize as number | undefined,
  };
  const uploader = await em.findOneOrFail(User, { id: options.userId, account: table.account });
  const stored = await receive(store, `${table.account.id}/${table.id}`, rules);
  try {
    const files = await em.transactional(async (tx) => {
      // The record may have gone while the bytes arrived; the lock keeps it until the rows are in.
      const [record] = await query(sqlOf(tx), `select id from ${qualified(rowTableName(table.id))} where id = ? for update`, [rowId]);
      if (!record) throw new NotFoundError(`Record "${rowId}" not found in Object "${table.name}"`);
      const created = stored.map((s) =>
        tx.create(RecordFile, {
          account: table.account,
          table,
          rowId,
          field: field ? tx.getReference(DataField, field.id) : null,
          ...s,
          uploadedBy: uploader,
        }),
      );
      await tx.flush();
      if (field) await setFieldFiles(tx, table, rowId, field, (ids) => [...ids, ...created.map((f) => String(f.id))]);
      return created;
    });
    return files.map(fileView);
  } catch (error) {
    await store.remove(stored.map((s) => s.storageKey));
    throw error;
  }
}

export async function listFiles(em: EntityManager, table: DataTable, rowId: string, page: { limit: number; cursor?: string }) {
  await requireRecord(em, table, rowId);
  const after = page.cursor ? Number(/^f:(\d+)$/.exec(Buffer.from(page.cursor, 'base64url').toString())?.[1] ?? NaN) : 0;
  if (Number.isNaN(after))
    throw new BadRequestError('Invalid cursor', [{ code: 'invalid', path: 'query.cursor', message: 'is not a nextCursor of this list' }]);
  const found = await em.find(
    RecordFile,
    { table, rowId, id: { $gt: after } },
    { orderBy: { id: 'asc' }, limit: page.limit + 1, populate: ['uploadedBy'] },
  );
  const items = found.slice(0, page.limit);
  const nextCursor = found.length > page.limit ? Buffer.from(`f:${items.at(-1)!.id}`).toString('base64url') : null;
  return { agentry: items.map(fileView), nextCursor };
}

/** A file of the Object whose record still exists. */
export async function findFile(em: EntityManager, table: DataTable, id: number): Promise<RecordFile> {
  const file = await em.findOne(RecordFile, { id, table, account: table.account }, { populate: ['uploadedBy'] });
  if (!file || !(await recordExists(em, table, file.rowId))) throw new NotFoundError(`File ${id} not found in Object "${table.name}"`);
  return file;
}

/** Deletes the file's row (and its id from its field's value), then its bytes. */
export async function deleteFile(em: EntityManager, store: FileStore, file: RecordFile): Promise<void> {
  await em.transactional(async (tx) => {
    await query(sqlOf(tx), 'delete from record_files where id = ?', [file.id]);
    if (file.field) {
      const field = (await fieldModels(tx, file.table)).find((f) => f.id === file.field!.id);
      if (field) await setFieldFiles(tx, file.table, file.rowId, field, (ids) => ids.filter((id) => id !== String(file.id)));
    }
  });
  await store.remove([file.storageKey]);
}

/** The file's bytes, or `range` of them. */
export function readFile(store: FileStore, file: RecordFile, range?: ByteRange) {
  return store.read(file.storageKey, range);
}
