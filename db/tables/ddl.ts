/**
 * DDL of the physical row tables. Every function runs on the caller's transaction, so a metadata change and
 * its DDL commit or roll back together. Identifiers are generated from numeric ids and always quoted.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { DATA_SCHEMA, type FieldModel } from './types.js';

export function rowTableName(tableId: number): string {
  return `rows_${tableId}`;
}

export function fieldColumnName(fieldId: number): string {
  return `f_${fieldId}`;
}

export function linkTableName(fieldId: number): string {
  return `links_${fieldId}`;
}

/** `"data"."rows_12"` */
export function qualified(name: string): string {
  return `"${DATA_SCHEMA}"."${name}"`;
}

export async function createRowTable(trx: Knex, tableId: number): Promise<void> {
  const table = rowTableName(tableId);
  await trx.raw(`create table ${qualified(table)} (
    "id" char(24) primary key,
    "record_type_id" integer null references "data_record_types" ("id") on delete restrict,
    "created_at" timestamptz not null default now(),
    "updated_at" timestamptz not null default now(),
    "_search" tsvector null
  )`);
  await trx.raw(`create index "${table}_record_type" on ${qualified(table)} ("record_type_id")`);
  // A large pending list batches GIN maintenance: bulk inserts stay fast, autovacuum merges the entries later.
  await trx.raw(`create index "${table}_search" on ${qualified(table)} using gin ("_search") with (gin_pending_list_limit = 16384)`);
}

export async function dropRowTable(trx: Knex, tableId: number, fields: FieldModel[]): Promise<void> {
  for (const field of fields) if (field.linkTable) await trx.raw(`drop table if exists ${qualified(field.linkTable)}`);
  await trx.raw(`drop table if exists ${qualified(rowTableName(tableId))} cascade`);
  await trx.raw(`drop function if exists "${DATA_SCHEMA}"."${rowTableName(tableId)}_search"()`);
}

/** Adds the storage of a field: a column (with its foreign key and unique index) or a link table. */
export async function addFieldStorage(
  trx: Knex,
  tableId: number,
  field: FieldModel,
  columnType: string | null,
  relatedTableId?: number,
): Promise<void> {
  const table = qualified(rowTableName(tableId));
  if (field.linkTable) {
    const target = qualified(rowTableName(relatedTableId!));
    await trx.raw(`create table ${qualified(field.linkTable)} (
      "source_id" char(24) not null references ${table} ("id") on delete cascade,
      "target_id" char(24) not null references ${target} ("id") on delete cascade,
      primary key ("source_id", "target_id")
    )`);
    await trx.raw(`create index "${field.linkTable}_target" on ${qualified(field.linkTable)} ("target_id")`);
    return;
  }
  if (!field.column || !columnType) return;
  const references = relatedTableId ? ` references ${qualified(rowTableName(relatedTableId))} ("id") on delete set null` : '';
  await trx.raw(`alter table ${table} add column "${field.column}" ${columnType}${references}`);
  const method = indexMethod(field);
  if (method) await trx.raw(`create index "${rowTableName(tableId)}_${field.column}" on ${table} using ${method} ("${field.column}")`);
  if (field.unique) await setUnique(trx, tableId, field, true);
}

/**
 * Which fields get an index of their own. Every index slows every write, so only the columns that filters and
 * sorts usually key on get one: numbers, dates, single selects, relations, users, and identifier-like text
 * (email, phone, URL). Free text is found through the full-text index; booleans, multi-valued and file columns
 * are rarely selective enough to pay for an index.
 */
export function indexMethod(field: FieldModel): 'btree' | null {
  switch (field.type) {
    case 'number':
    case 'date':
    case 'dateOnly':
    case 'relation':
      return 'btree';
    case 'select':
    case 'entityRelation':
      return field.metadata.mode === 'multiSelect' || field.metadata.mode === 'multi' ? null : 'btree';
    case 'string':
      return field.metadata.format && field.metadata.format !== 'text' ? 'btree' : null;
    default:
      return null;
  }
}

/** Re-creates a field's own index after its type or mode changed, following `indexMethod`. */
export async function syncIndex(trx: Knex, tableId: number, field: FieldModel): Promise<void> {
  if (!field.column) return;
  const index = `${rowTableName(tableId)}_${field.column}`;
  await trx.raw(`drop index if exists "${DATA_SCHEMA}"."${index}"`);
  const method = indexMethod(field);
  if (method) await trx.raw(`create index "${index}" on ${qualified(rowTableName(tableId))} using ${method} ("${field.column}")`);
}

export async function dropFieldStorage(trx: Knex, tableId: number, field: FieldModel): Promise<void> {
  if (field.linkTable) await trx.raw(`drop table if exists ${qualified(field.linkTable)}`);
  if (field.column) await trx.raw(`alter table ${qualified(rowTableName(tableId))} drop column if exists "${field.column}"`);
}

/** Adds or drops the unique index of a field; adding fails with a unique violation when values repeat. */
export async function setUnique(trx: Knex, tableId: number, field: FieldModel, unique: boolean): Promise<void> {
  if (!field.column) return;
  const index = `${rowTableName(tableId)}_${field.column}_unique`;
  if (unique) {
    await trx.raw(`create unique index "${index}" on ${qualified(rowTableName(tableId))} ("${field.column}")`);
  } else {
    await trx.raw(`drop index if exists "${DATA_SCHEMA}"."${index}"`);
  }
}

/**
 * Keeps `_search` (the full-text vector of the row's text fields) up to date through a trigger, so every write
 * path maintains it. Call after the set of text fields changes; `refresh` recomputes existing rows.
 */
export async function syncSearch(trx: Knex, tableId: number, fields: FieldModel[], refresh: boolean): Promise<void> {
  const table = rowTableName(tableId);
  const columns = fields.filter((f) => f.type === 'string' && f.column).map((f) => `new."${f.column}"`);
  const vector = columns.length ? `to_tsvector('simple', concat_ws(' ', ${columns.join(', ')}))` : 'null';
  await trx.raw(`create or replace function "${DATA_SCHEMA}"."${table}_search"() returns trigger language plpgsql as $$
    begin new."_search" := ${vector}; return new; end $$`);
  await trx.raw(`create or replace trigger "${table}_search" before insert or update on ${qualified(table)}
    for each row execute function "${DATA_SCHEMA}"."${table}_search"()`);
  if (refresh) await trx.raw(`update ${qualified(table)} set "_search" = null`);
}

/** The columns a row's API form is built from (everything but the `_search` vector), for select lists. */
export function rowColumns(fields: FieldModel[], prefix = ''): string {
  const names = ['id', 'record_type_id', 'created_at', 'updated_at', ...fields.filter((f) => f.column).map((f) => f.column!)];
  return names.map((n) => `${prefix}"${n}"`).join(', ');
}
