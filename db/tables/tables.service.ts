/** Objects and Tables: metadata and physical row table created, changed and dropped together. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError } from '../../lib/errors.js';
import { Account } from '../accounts/account.entity.js';
import { DataField } from './data-field.entity.js';
import { DataTable } from './data-table.entity.js';
import { DataView } from './data-view.entity.js';
import { RecordType } from './record-type.entity.js';
import { KIND_LABEL, findTable, loadFields, lockTable, query, sqlOf } from './table-lookups.js';
import { createRowTable, dropRowTable, syncSearch } from './ddl.js';
import { refuseIfTableRead } from './formulas/formula-fields.service.js';
import { addField, type FieldInput } from './fields.service.js';
import type { TableKind } from './types.js';
import { fieldView, recordTypeView, tableSummary, viewView } from './views.js';

export interface TableInput {
  name: string;
  displayName?: string;
  emoji?: string | null;
  color?: string | null;
  description?: string | null;
  columns?: FieldInput[];
}

export type TablePatch = Partial<Pick<TableInput, 'displayName' | 'emoji' | 'color' | 'description'>>;

/** URL name of a table: lowercase letters, digits and underscores. */
export function slugOf(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 63);
}

export async function listTables(em: EntityManager, accountId: number, kind: TableKind) {
  const tables = await em.find(DataTable, { account: accountId, kind }, { orderBy: { id: 'asc' } });
  return tables.map(tableSummary);
}

/** Creates an Object or Table with its row table, its default record type (Objects) and its columns. */
export async function createTable(em: EntityManager, accountId: number, kind: TableKind, input: TableInput, isSystem = false) {
  const name = slugOf(input.name);
  if (!name || /^\d/.test(name)) {
    throw new BadRequestError('name must contain a letter and must not start with a digit', [
      { code: 'invalid', path: 'name', message: 'must contain letters or digits and start with a letter' },
    ]);
  }
  if (kind === 'OBJECT' && !isSystem && !input.columns?.length) {
    throw new BadRequestError('An Object needs at least one column', [
      { code: 'required', path: 'columns', message: 'at least one column is required' },
    ]);
  }
  return em.transactional(async (tx) => {
    if (await tx.count(DataTable, { account: accountId, kind, name })) {
      throw new ConflictError(`${KIND_LABEL[kind]} "${name}" already exists`);
    }
    const table = tx.create(DataTable, {
      account: tx.getReference(Account, accountId),
      kind,
      name,
      displayName: input.displayName?.trim() || input.name.trim(),
      emoji: input.emoji ?? null,
      color: input.color ?? null,
      description: input.description ?? null,
      isSystem,
    });
    if (kind === 'OBJECT') tx.create(RecordType, { table, name: 'Default', isDefault: true });
    await tx.flush();
    await createRowTable(sqlOf(tx), table.id);
    await syncSearch(sqlOf(tx), table.id, [], false);
    for (const [index, column] of (input.columns ?? []).entries()) {
      await addField(tx, table, column).catch((error: unknown) => {
        throw prefixIssues(error, `columns[${index}]`);
      });
    }
    return table;
  });
}

/** Re-roots the issue paths of a field error under `columns[i]`. */
function prefixIssues(error: unknown, prefix: string): unknown {
  if (error instanceof BadRequestError && Array.isArray(error.details?.issues)) {
    const issues = (error.details.issues as { code: string; path: string; message: string }[]).map((i) => ({ ...i, path: `${prefix}.${i.path}` }));
    return new BadRequestError(`${prefix}: ${error.message}`, issues);
  }
  return error;
}

/** Detail: the table with its fields, views and (Objects) record types. */
export async function describeTable(em: EntityManager, table: DataTable) {
  const fields = await loadFields(em, table);
  const views = await em.find(DataView, { table }, { orderBy: { position: 'asc', id: 'asc' } });
  const detail = {
    ...tableSummary(table),
    fields: fields.entities.map((f, i) => fieldView(f, fields.models[i]!)),
    views: views.map(viewView),
  };
  if (table.kind === 'TABLE') return detail;
  const recordTypes = await em.find(RecordType, { table }, { orderBy: { position: 'asc', id: 'asc' } });
  return {
    ...detail,
    recordTypes: recordTypes.map((rt) =>
      recordTypeView(
        rt,
        fields.entities.filter((f) => !f.recordType || f.recordType.id === rt.id).map((f) => f.id),
      ),
    ),
  };
}

/** Schema: fields with their types and formats only. */
export async function tableSchema(em: EntityManager, table: DataTable) {
  const fields = await loadFields(em, table);
  return {
    id: table.id,
    name: table.name,
    kind: table.kind === 'OBJECT' ? 'object' : 'table',
    fields: fields.entities.map((f) => ({
      id: f.id,
      name: f.name,
      type: f.type,
      format: (f.metadata.format as string | undefined) ?? null,
      required: f.required,
      unique: f.unique,
      readOnly: f.readOnly || f.type === 'formula',
      ...(f.type === 'select' ? { mode: f.metadata.mode } : {}),
      ...(f.type === 'relation' ? { relatedTableId: f.metadata.relatedTableId, mode: f.metadata.mode } : {}),
    })),
  };
}

export async function updateTable(em: EntityManager, accountId: number, kind: TableKind, ref: string, patch: TablePatch) {
  const table = await findTable(em, accountId, kind, ref);
  if (patch.displayName !== undefined) {
    if (!patch.displayName.trim())
      throw new BadRequestError('displayName must not be empty', [{ code: 'invalid', path: 'displayName', message: 'must not be empty' }]);
    table.displayName = patch.displayName.trim();
  }
  if (patch.emoji !== undefined) table.emoji = patch.emoji;
  if (patch.color !== undefined) table.color = patch.color;
  if (patch.description !== undefined) table.description = patch.description;
  await em.flush();
  return table;
}

/** Drops a table and its rows; refuses system Objects and tables that other tables' relations point at. */
/**
 * Deletes a Table or custom Object with its rows and the rows of its record files (a foreign key cascades); answers
 * the storage keys of those files, whose bytes the caller removes once the deletion is committed.
 */
export async function deleteTable(em: EntityManager, accountId: number, kind: TableKind, ref: string): Promise<string[]> {
  return em.transactional(async (tx) => {
    const table = await findTable(tx, accountId, kind, ref);
    if (table.isSystem) throw new BadRequestError(`"${table.name}" is a standard Object and cannot be deleted`, 'name');
    await lockTable(tx, table.id, 'schema');
    const relations = await tx.find(DataField, { type: 'relation', table: { account: accountId, id: { $ne: table.id } } }, { populate: ['table'] });
    const pointing = relations.find((f) => Number(f.metadata.relatedTableId) === table.id);
    if (pointing) {
      throw new ConflictError(
        `"${table.name}" is the target of the relation field "${pointing.name}" of "${pointing.table.name}"; delete that field first`,
      );
    }
    const fields = await loadFields(tx, table);
    await refuseIfTableRead(
      tx,
      accountId,
      table,
      fields.models.map((f) => f.id),
    );
    const files = await query<{ storage_key: string }>(sqlOf(tx), 'select storage_key from record_files where table_id = ?', [table.id]);
    await dropRowTable(sqlOf(tx), table.id, fields.models);
    tx.remove(table);
    await tx.flush();
    return files.map((f) => f.storage_key);
  });
}
