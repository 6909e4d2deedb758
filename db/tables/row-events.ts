/** Row and record events written to the outbox in the transaction of the row change (DESIGN.md, Events). */
import type { Knex } from '@mikro-orm/postgresql';
import type { DataTable } from '../entities/index.js';
import type { RowView } from './row-values.js';

export type RowChange = 'CREATED' | 'UPDATED';

/** Event types of one change: Tables emit TABLE_ROW_*, Objects OBJECT_RECORD_*, and People also CONTACT_*. */
export function eventTypes(table: DataTable, change: RowChange): string[] {
  if (table.kind === 'TABLE') return [`TABLE_ROW_${change}`];
  const types = [`OBJECT_RECORD_${change}`];
  if (table.isSystem && table.name === 'people') types.push(`CONTACT_${change}`);
  return types;
}

export interface RowEvent {
  row: RowView;
  changedFields?: string[];
}

export async function writeRowEvents(trx: Knex, table: DataTable, change: RowChange, events: RowEvent[]): Promise<void> {
  if (!events.length) return;
  const types = eventTypes(table, change);
  const payloads = events.flatMap(({ row, changedFields }) => {
    const payload = JSON.stringify({
      tableId: table.id,
      tableName: table.name,
      kind: table.kind,
      rowId: row.id,
      recordTypeId: row.recordTypeId,
      row,
      ...(changedFields ? { changedFields } : {}),
    });
    return types.map(() => payload);
  });
  const typeList = events.flatMap(() => types);
  // One statement whatever the number of events: payloads and types travel as two array parameters.
  await trx.raw(
    'insert into outbox_events (account_id, type, payload, created_at) select ?, t, p::json, now() from unnest(?::text[], ?::text[]) as u(t, p)',
    [table.account.id, typeList, payloads],
  );
}
