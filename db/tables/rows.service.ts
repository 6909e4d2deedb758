/**
 * Writes and reads of rows. Every write validates all values first, checks references to other rows and users
 * in the database, writes rows, links and outbox events in one transaction, and returns the stored rows.
 */
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError, type Issue } from '../../lib/errors.js';
import type { DataTable } from './data-table.entity.js';
import { defaultRecordType, fieldModels, findRecordType, findTable, lockTable, query, sqlOf } from './table-lookups.js';
import { qualified, rowColumns, rowTableName } from './ddl.js';
import { rowSource } from './formulas/formula-source.js';
import { OBJECT_ID_PATTERN, newObjectId } from './object-id.js';
import { rowEventsStatement, writeRowEvents } from './row-events.js';
import { insertRows } from './row-insert.js';
import { prepareRow, rowView, type PreparedRow, type RowView } from './row-values.js';
import { DATA_SCHEMA, type FieldModel, type TableKind } from './types.js';
import { oncePerKey, type IdempotentAnswer } from '../automations/idempotency-keys.js';
import { bodyDigest } from '../../lib/idempotency.js';

/** Largest number of rows one bulk create accepts. */
export const MAX_BULK_ROWS = 5000;

export interface RowInput {
  values: Record<string, unknown>;
  recordTypeId?: number | null;
}

export interface TableContext {
  table: DataTable;
  fields: FieldModel[];
  /** Automations whose runs make this change (row writes by workflow nodes); their events carry it (loop prevention). */
  chain?: number[];
}

/** Splits a row body: values flat in the body or nested under `data`; `recordTypeId` beside them. */
export function rowInputOf(body: Record<string, unknown>): RowInput {
  const { recordTypeId, data, ...flat } = body;
  if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data))) {
    throw new BadRequestError('data must be an object of field values', [{ code: 'invalid', path: 'data', message: 'must be an object' }]);
  }
  const values = data !== undefined ? { ...flat, ...(data as Record<string, unknown>) } : flat;
  return { values, recordTypeId: recordTypeId as number | null | undefined };
}

export async function tableContext(em: EntityManager, accountId: number, kind: TableKind, ref: string): Promise<TableContext> {
  const table = await findTable(em, accountId, kind, ref);
  return { table, fields: await fieldModels(em, table) };
}

async function resolveRecordType(em: EntityManager, table: DataTable, requested: number | null | undefined, path: string): Promise<number | null> {
  if (table.kind === 'TABLE') {
    if (requested != null)
      throw new BadRequestError('Tables have no record types', [{ code: 'invalid', path, message: 'Tables have no record types' }]);
    return null;
  }
  if (requested == null) return (await defaultRecordType(em, table))?.id ?? null;
  await findRecordType(em, table, requested).catch(() => {
    throw new BadRequestError(`Record type ${requested} not found`, [
      { code: 'not_found', path, message: `no record type ${requested} in "${table.name}"` },
    ]);
  });
  return requested;
}

/** Every referenced row and user must exist (in the related table, in the account). */
async function checkReferences(trx: Knex, table: DataTable, fields: FieldModel[], prepared: PreparedRow[]): Promise<void> {
  const issues: Issue[] = [];
  for (const field of fields.filter((f) => f.type === 'relation')) {
    const ids = new Set<string>();
    for (const p of prepared) p.relationRefs.get(field.id)?.forEach((id) => ids.add(id));
    if (!ids.size) continue;
    const target = rowTableName(Number(field.metadata.relatedTableId));
    const found = await query<{ id: string }>(trx, `select id from ${qualified(target)} where id = any(?)`, [[...ids]]);
    const existing = new Set(found.map((r) => r.id));
    const missing = [...ids].filter((id) => !existing.has(id));
    if (missing.length)
      issues.push({ code: 'not_found', path: `data.${field.name}`, message: `no record ${missing.slice(0, 5).join(', ')} in the related table` });
  }
  const users = new Set<number>();
  for (const p of prepared) p.userRefs.forEach((id) => users.add(id));
  if (users.size) {
    const found = await query<{ id: number }>(trx, 'select id from users where account_id = ? and id = any(?)', [table.account.id, [...users]]);
    const missing = [...users].filter((id) => !found.some((u) => u.id === id));
    if (missing.length) issues.push({ code: 'not_found', path: 'data', message: `no user ${missing.join(', ')} in this account` });
  }
  if (issues.length) throw new BadRequestError(`Invalid reference: ${issues[0]!.path} ${issues[0]!.message}`, issues);
}

async function writeLinks(trx: Knex, fields: FieldModel[], rowIds: string[], prepared: PreparedRow[], replace: boolean): Promise<void> {
  for (const field of fields.filter((f) => f.linkTable)) {
    const touched = rowIds.filter((_, i) => prepared[i]!.links.has(field.id));
    if (!touched.length) continue;
    if (replace) await query(trx, `delete from ${qualified(field.linkTable!)} where source_id = any(?)`, [touched]);
    const pairs = rowIds.flatMap((id, i) => (prepared[i]!.links.get(field.id) ?? []).map((target) => ({ source_id: id, target_id: target })));
    if (pairs.length) await trx.withSchema(DATA_SCHEMA).insert(pairs).into(field.linkTable!);
  }
}

/** Targets of the multi relations of the given rows: field id → row id → target ids. */
async function loadLinks(trx: Knex, fields: FieldModel[], rowIds: string[]): Promise<Map<number, Map<string, string[]>>> {
  const result = new Map<number, Map<string, string[]>>();
  for (const field of fields.filter((f) => f.linkTable)) {
    const rows = await query<{ source_id: string; targets: string[] }>(
      trx,
      `select source_id, array_agg(target_id order by target_id) as targets from ${qualified(field.linkTable!)} where source_id = any(?) group by source_id`,
      [rowIds],
    );
    result.set(field.id, new Map(rows.map((r) => [r.source_id, r.targets])));
  }
  return result;
}

/** Converts stored rows to their API form, loading the links of multi relations in one query per field. */
export async function toViews(trx: Knex, fields: FieldModel[], rows: Record<string, unknown>[]): Promise<RowView[]> {
  const links = await loadLinks(
    trx,
    fields,
    rows.map((r) => String(r.id)),
  );
  return rows.map((raw) => {
    const own = new Map<number, string[]>();
    for (const [fieldId, byRow] of links) own.set(fieldId, byRow.get(String(raw.id)) ?? []);
    return rowView(fields, raw, own);
  });
}

/** Rows by id (ordered by id) with their formula values, read through the table's row source. */
export async function readRows(em: EntityManager, table: DataTable, fields: FieldModel[], ids: string[]): Promise<RowView[]> {
  const trx = sqlOf(em);
  const source = await rowSource(em, table, fields);
  const from = source.from('r');
  const rows = await query(trx, `select ${rowColumns(source.fields, '"r".')} from ${from.sql} where "r"."id" = any(?) order by "r"."id"`, [
    ...from.bindings,
    ids,
  ]);
  return toViews(trx, source.fields, rows);
}

export const hasFormulas = (fields: FieldModel[]): boolean => fields.some((f) => f.type === 'formula');

/** Inside a row-writing transaction: holds off schema changes of the table and reads its current fields. */
async function fieldsForWrite(tx: EntityManager, table: DataTable, { locked }: WriteOptions): Promise<FieldModel[]> {
  return fieldModels(tx, table, locked ? table.schemaVersion : await lockTable(tx, table.id, 'rows'));
}

/**
 * How a row write runs: in a transaction of its own (a savepoint when `em` is in one), or, with `join`, in the
 * transaction `em` is in (a node's effect recorded once with its output, which fails as a whole): two round trips
 * fewer.
 */
export interface WriteOptions {
  join?: boolean;
  /**
   * The caller read `table` in this transaction with `findTableById(…, { forShare: true })`: it holds the lock of
   * `lockTable` and `table.schemaVersion` is current, so the write takes neither again (one round trip fewer).
   */
  locked?: boolean;
}

function inTransaction<T>(em: EntityManager, { join }: WriteOptions, work: (tx: EntityManager) => Promise<T>): Promise<T> {
  return join ? work(em) : em.transactional(work);
}

/**
 * Creates rows as `createRows` does, answered as `answer` makes them; with an `Idempotency-Key` (`once.key`) once per
 * key and table: the rows and the key commit together, and the same key and request body answer the first answer
 * again, another body with the key is a conflict (lib/idempotency.ts). Without a key the rows are simply created.
 */
export async function createRowsOnce<T extends object>(
  em: EntityManager,
  context: TableContext,
  inputs: RowInput[],
  once: { key?: string; body: unknown },
  answer: (rows: RowView[]) => T,
): Promise<IdempotentAnswer<T>> {
  const write = async (tx: EntityManager) => answer(await createRows(tx, context, inputs, { join: true }));
  const { key } = once;
  if (!key) return { status: 201, body: await em.transactional(write), replayed: false };
  const call = { scope: `rows:${context.table.id}`, key, requestHash: bodyDigest(once.body) };
  return em.transactional((tx) => oncePerKey(tx, call, 201, () => write(tx)));
}

/** Creates rows, all or nothing. */
export async function createRows(
  em: EntityManager,
  { table, chain }: TableContext,
  inputs: RowInput[],
  options: WriteOptions = {},
): Promise<RowView[]> {
  if (inputs.length > MAX_BULK_ROWS)
    throw new BadRequestError(`At most ${MAX_BULK_ROWS} rows per request`, [
      { code: 'invalid', path: 'rows', message: `more than ${MAX_BULK_ROWS} rows` },
    ]);
  return inTransaction(em, options, async (tx) => {
    const trx = sqlOf(tx);
    const fields = await fieldsForWrite(tx, table, options);
    const now = new Date();
    const bulk = inputs.length > 1;
    const prepared = inputs.map((input, i) => prepareRow(fields, input.values, 'create', { now }, bulk ? `rows[${i}].data` : 'data'));
    // One lookup per distinct record type, one after the other: a transaction's connection runs one query at a time.
    const resolved = new Map<number | null | undefined, number | null>();
    const recordTypes: (number | null)[] = [];
    for (const [i, input] of inputs.entries()) {
      if (!resolved.has(input.recordTypeId))
        resolved.set(input.recordTypeId, await resolveRecordType(tx, table, input.recordTypeId, bulk ? `rows[${i}].recordTypeId` : 'recordTypeId'));
      recordTypes.push(resolved.get(input.recordTypeId)!);
    }
    await checkReferences(trx, table, fields, prepared);
    const ids = inputs.map(() => newObjectId(now));
    const stamp = now.toISOString();
    const records = prepared.map((p, i) => ({ id: ids[i], record_type_id: recordTypes[i], created_at: stamp, updated_at: stamp, ...p.columns }));
    // The stored values are exactly the prepared ones: build the answer from them instead of reading back, and write
    // the events with the rows, unless formulas compute values from them (read back once, in one statement, so events
    // carry those values too).
    const formulas = hasFormulas(fields);
    let views = records.map((record, i) => rowView(fields, record, prepared[i]!.links));
    const events = (rows: RowView[]) => rows.map((row) => ({ row }));
    await insertRows(trx, table.id, fields, records, formulas ? undefined : rowEventsStatement(table, 'CREATED', events(views), chain));
    await writeLinks(trx, fields, ids, prepared, false);
    if (formulas) {
      const byId = new Map((await readRows(tx, table, fields, ids)).map((row) => [row.id, row]));
      views = ids.map((id) => byId.get(id)!);
      await writeRowEvents(trx, table, 'CREATED', events(views), chain);
    }
    return views;
  });
}

function checkRowId(id: string): void {
  if (!OBJECT_ID_PATTERN.test(id)) throw new NotFoundError(`Record ${id} not found`);
}

export async function getRow(em: EntityManager, { table, fields }: TableContext, id: string): Promise<RowView> {
  checkRowId(id);
  const [row] = await readRows(em, table, fields, [id]);
  if (!row) throw new NotFoundError(`Record ${id} not found`);
  return row;
}

/** Changes the given fields (and optionally the record type) of one row. */
export async function updateRow(
  em: EntityManager,
  { table, chain }: TableContext,
  id: string,
  input: RowInput,
  options: WriteOptions = {},
): Promise<RowView> {
  checkRowId(id);
  return inTransaction(em, options, async (tx) => {
    const trx = sqlOf(tx);
    const fields = await fieldsForWrite(tx, table, options);
    const prepared = prepareRow(fields, input.values, 'update', { now: new Date() });
    const changes: Record<string, unknown> = { ...prepared.columns, updated_at: new Date() };
    // jsonb cells (files) travel as JSON text: node-postgres would send a JS array as a PostgreSQL array.
    for (const f of fields) if (f.type === 'file' && f.column && changes[f.column] != null) changes[f.column] = JSON.stringify(changes[f.column]);
    if (input.recordTypeId !== undefined) changes.record_type_id = await resolveRecordType(tx, table, input.recordTypeId, 'recordTypeId');
    await checkReferences(trx, table, fields, [prepared]);
    const updated = await trx
      .withSchema(DATA_SCHEMA)
      .table(rowTableName(table.id))
      .where({ id })
      .update(changes)
      .returning(['id', 'record_type_id', 'created_at', 'updated_at', ...fields.filter((f) => f.column).map((f) => f.column!)]);
    if (!updated.length) throw new NotFoundError(`Record ${id} not found`);
    await writeLinks(trx, fields, [id], [prepared], true);
    const [row] = hasFormulas(fields) ? await readRows(tx, table, fields, [id]) : await toViews(trx, fields, updated);
    const changedFields = input.recordTypeId !== undefined ? [...prepared.touched, 'recordTypeId'] : prepared.touched;
    await writeRowEvents(trx, table, 'UPDATED', [{ row: row!, changedFields }], chain);
    return row!;
  });
}

/**
 * Deletes a row with its record activities, tasks and file rows. Answers the storage keys of its files: the
 * caller removes their bytes once the deletion is committed.
 */
export async function deleteRow(em: EntityManager, { table }: TableContext, id: string, options: WriteOptions = {}): Promise<string[]> {
  checkRowId(id);
  return inTransaction(em, options, async (tx) => {
    const trx = sqlOf(tx);
    const deleted = await query(trx, `delete from ${qualified(rowTableName(table.id))} where id = ? returning id`, [id]);
    if (!deleted.length) throw new NotFoundError(`Record ${id} not found`);
    await query(trx, `delete from record_activities where table_id = ? and row_id = ?`, [table.id, id]);
    await query(trx, `delete from record_tasks where table_id = ? and row_id = ?`, [table.id, id]);
    const files = await query<{ storage_key: string }>(trx, `delete from record_files where table_id = ? and row_id = ? returning storage_key`, [
      table.id,
      id,
    ]);
    return files.map((f) => f.storage_key);
  });
}
