/**
 * Lookups of the data plane's metadata, always scoped to one account: a table of another account, or a field,
 * option, record type or view of another table, is simply not found (404).
 */
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import { Account } from '../accounts/account.entity.js';
import { DataField } from './data-field.entity.js';
import { DataTable } from './data-table.entity.js';
import { FieldOption } from './field-option.entity.js';
import { RecordType } from './record-type.entity.js';
import { fieldColumnName, linkTableName } from './ddl.js';
import { FIELD_TYPE_HANDLERS } from './field-types/index.js';
import type { FieldModel, TableKind } from './types.js';

/** The knex handle of the transaction `em` is in (or a plain connection outside one). */
export function sqlOf(em: EntityManager): Knex {
  return em.getTransactionContext<Knex.Transaction>() ?? em.getKnex();
}

/** Runs SQL with `??` identifier and `?` value bindings on a knex handle; returns the rows. */
export async function query<T = Record<string, unknown>>(trx: Knex, sql: string, bindings: unknown[] = []): Promise<T[]> {
  const result = await trx.raw(sql, bindings as Knex.RawBinding[]);
  return result.rows as T[];
}

/**
 * Serializes schema changes of a table with its row writes, so a write never runs against a column set that
 * changed under it: row writes lock the table's metadata row FOR SHARE (they run side by side), schema changes
 * FOR UPDATE (they wait for running writes and hold back new ones). Call inside a transaction.
 */
export async function lockTable(em: EntityManager, tableId: number, purpose: 'rows' | 'schema'): Promise<number> {
  const sql =
    purpose === 'schema'
      ? 'update data_tables set schema_version = schema_version + 1 where id = ? returning schema_version'
      : 'select schema_version from data_tables where id = ? for share';
  const [row] = await query<{ schema_version: number }>(sqlOf(em), sql, [tableId]);
  return row!.schema_version;
}

/** Field models per table and schema version: the version changes with every field or option change. */
const fieldCache = new Map<number, { version: number; models: FieldModel[] }>();
const FIELD_CACHE_SIZE = 2000;

/** The table's field models at the given schema version, from the cache or the database. */
export async function fieldModels(em: EntityManager, table: DataTable, version = table.schemaVersion): Promise<FieldModel[]> {
  const cached = fieldCache.get(table.id);
  if (cached && cached.version === version) return cached.models;
  const { models } = await loadFields(em, table);
  if (fieldCache.size >= FIELD_CACHE_SIZE) fieldCache.delete(fieldCache.keys().next().value!);
  fieldCache.set(table.id, { version, models });
  return models;
}

export const KIND_LABEL: Record<TableKind, string> = { OBJECT: 'Object', TABLE: 'Table' };

/**
 * Finds an Object or Table of the account by URL name or numeric id. Every data request starts here, so it is one
 * plain query whose row is merged into the entity manager.
 */
export async function findTable(em: EntityManager, accountId: number, kind: TableKind, ref: string): Promise<DataTable> {
  const byId = /^\d+$/.test(ref);
  const [row] = await query<Record<string, unknown>>(
    sqlOf(em),
    `select * from data_tables where account_id = ? and kind = ? and ${byId ? 'id = ?' : 'name = ?'}`,
    [accountId, kind, byId ? Number(ref) : ref.toLowerCase()],
  );
  if (!row) throw new NotFoundError(`${KIND_LABEL[kind]} "${ref}" not found`);
  return mergeTable(em, accountId, row);
}

/** Objects and Tables of the account by id, in one query (the ones of other accounts are left out). */
export async function findTablesById(em: EntityManager, accountId: number, ids: number[]): Promise<DataTable[]> {
  if (!ids.length) return [];
  const rows = await query<Record<string, unknown>>(sqlOf(em), 'select * from data_tables where account_id = ? and id = any(?)', [accountId, ids]);
  return rows.map((row) => mergeTable(em, accountId, row));
}

/** What a row write needs of its table besides the fields, as last read by this process (`cachedTable`). */
export interface TableHead {
  id: number;
  account: { id: number };
  kind: TableKind;
  name: string;
  isSystem: boolean;
  schemaVersion: number;
}

/** The heads of the tables this process read last, by id (every read of a table refreshes its head). */
const headCache = new Map<number, TableHead>();

/**
 * The head and fields of table `id` of the account as this process last read them, when both are cached at the same
 * schema version; null otherwise. They may be stale: a write built on them must check the version and the name it
 * was built for in its own statement (db/tables/row-create-once.ts).
 */
export function cachedTable(accountId: number, id: number): { head: TableHead; fields: FieldModel[] } | null {
  const head = headCache.get(id);
  const fields = fieldCache.get(id);
  if (!head || head.account.id !== accountId || !fields || fields.version !== head.schemaVersion) return null;
  return { head, fields: fields.models };
}

function mergeTable(em: EntityManager, accountId: number, row: Record<string, unknown>): DataTable {
  const head: TableHead = {
    id: row.id as number,
    account: { id: accountId },
    kind: row.kind as TableKind,
    name: row.name as string,
    isSystem: row.is_system as boolean,
    schemaVersion: row.schema_version as number,
  };
  headCache.delete(head.id);
  if (headCache.size >= FIELD_CACHE_SIZE) headCache.delete(headCache.keys().next().value!);
  headCache.set(head.id, head);
  return em.merge(DataTable, {
    id: row.id as number,
    account: em.getReference(Account, accountId),
    kind: row.kind as TableKind,
    name: row.name as string,
    displayName: row.display_name as string,
    emoji: row.emoji as string | null,
    color: row.color as string | null,
    description: row.description as string | null,
    isSystem: row.is_system as boolean,
    schemaVersion: row.schema_version as number,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  });
}

/**
 * Any Object or Table of the account by id (relation targets may be either): one plain query, merged, as `findTable`.
 * `forShare` (in a transaction) also takes the lock a row write takes (`lockTable`), in the same statement.
 */
export async function findTableById(em: EntityManager, accountId: number, id: number, { forShare = false } = {}): Promise<DataTable | null> {
  const [row] = await query<Record<string, unknown>>(
    sqlOf(em),
    `select * from data_tables where account_id = ? and id = ?${forShare ? ' for share' : ''}`,
    [accountId, id],
  );
  return row ? mergeTable(em, accountId, row) : null;
}

export function toFieldModel(field: DataField, options: FieldOption[]): FieldModel {
  const handler = FIELD_TYPE_HANDLERS[field.type];
  const multiRelation = field.type === 'relation' && field.metadata.mode === 'multi';
  const columnType = handler.columnType(field.metadata);
  return {
    id: field.id,
    name: field.name,
    type: field.type,
    metadata: field.metadata,
    column: columnType ? fieldColumnName(field.id) : null,
    linkTable: multiRelation ? linkTableName(field.id) : null,
    required: field.required,
    unique: field.unique,
    defaultValue: field.defaultValue ?? null,
    readOnly: field.readOnly || field.type === 'formula',
    options: options
      .filter((o) => o.field.id === field.id)
      .sort((a, b) => a.position - b.position || a.id - b.id)
      .map((o) => ({ id: o.id, name: o.name, color: o.color ?? null, order: o.position })),
  };
}

export interface TableFields {
  entities: DataField[];
  models: FieldModel[];
}

/** Fields of a table in display order, as entities and as data-plane models. */
export async function loadFields(em: EntityManager, table: DataTable): Promise<TableFields> {
  const entities = await em.find(DataField, { table }, { orderBy: { position: 'asc', id: 'asc' }, populate: ['recordType'] });
  const options = entities.some((f) => f.type === 'select')
    ? await em.find(FieldOption, { field: { $in: entities.filter((f) => f.type === 'select').map((f) => f.id) } })
    : [];
  return { entities, models: entities.map((f) => toFieldModel(f, options)) };
}

export async function findField(em: EntityManager, table: DataTable, fieldId: number): Promise<DataField> {
  const field = await em.findOne(DataField, { id: fieldId, table });
  if (!field) throw new NotFoundError(`Field ${fieldId} not found in ${KIND_LABEL[table.kind]} "${table.name}"`);
  return field;
}

export async function findRecordType(em: EntityManager, table: DataTable, recordTypeId: number): Promise<RecordType> {
  const recordType = await em.findOne(RecordType, { id: recordTypeId, table });
  if (!recordType) throw new NotFoundError(`Record type ${recordTypeId} not found in "${table.name}"`);
  return recordType;
}

export async function defaultRecordType(em: EntityManager, table: DataTable): Promise<RecordType | null> {
  return em.findOne(RecordType, { table, isDefault: true });
}
