/**
 * Multi-row INSERT as one statement with the whole batch as one JSON parameter (`json_to_recordset`): the SQL
 * text stays small whatever the number of rows, and serializing is one native JSON.stringify instead of one
 * parameter per value, which keeps bulk creates fast.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { query } from './table-lookups.js';
import { qualified, rowTableName } from './ddl.js';
import { FIELD_TYPE_HANDLERS } from './field-types/index.js';
import type { FieldModel } from './types.js';
import type { RowEventsStatement } from './row-events.js';

const SYSTEM_COLUMNS = [
  { name: 'id', type: 'text' },
  { name: 'record_type_id', type: 'integer' },
  { name: 'created_at', type: 'timestamptz' },
  { name: 'updated_at', type: 'timestamptz' },
];

/**
 * Inserts the records (column → value; arrays and objects as JSON values); with `events`, writes those row events in
 * the same statement (one round trip for both).
 */
export async function insertRows(
  trx: Knex,
  tableId: number,
  fields: FieldModel[],
  records: Record<string, unknown>[],
  events?: RowEventsStatement,
): Promise<void> {
  const insert = insertStatement(tableId, fields);
  if (!events) await query(trx, insert, [JSON.stringify(records)]);
  else await query(trx, `with inserted as (${insert}), ${events.with} ${events.select}`, [JSON.stringify(records), ...events.bindings]);
}

/**
 * The INSERT of `insertRows`, its one parameter the records as JSON; `when`, an SQL condition of the statement it
 * is part of, under which it inserts them (always without).
 */
export function insertStatement(tableId: number, fields: FieldModel[], when?: string): string {
  const columns = [
    ...SYSTEM_COLUMNS,
    ...fields.filter((f) => f.column).map((f) => ({ name: f.column!, type: FIELD_TYPE_HANDLERS[f.type].columnType(f.metadata)! })),
  ];
  const names = columns.map((c) => `"${c.name}"`).join(', ');
  const definitions = columns.map((c) => `"${c.name}" ${c.type.startsWith('char') ? 'text' : c.type}`).join(', ');
  return `insert into ${qualified(rowTableName(tableId))} (${names}) select ${names} from json_to_recordset(?::json) as x(${definitions})${when ? ` where ${when}` : ''}`;
}
