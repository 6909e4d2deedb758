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

/** `chain`: the automations whose runs made the change, when a workflow node made it (loop prevention). */
export async function writeRowEvents(trx: Knex, table: DataTable, change: RowChange, events: RowEvent[], chain?: number[]): Promise<void> {
  if (!events.length) return;
  const head = { tableId: table.id, tableName: table.name, kind: table.kind };
  // One statement and one JSON document for the whole batch; PostgreSQL builds each event's payload.
  await trx.raw(
    `insert into outbox_events (account_id, type, payload, chain, created_at)
     select ?, t.type, json_build_object('tableId', h->'tableId', 'tableName', h->'tableName', 'kind', h->'kind',
              'rowId', e->'row'->'id', 'recordTypeId', e->'row'->'recordTypeId', 'row', e->'row', 'changedFields', e->'changedFields'), ?::json, now()
       from json_array_elements(?::json) as e, unnest(?::text[]) as t(type), (select ?::json as h) as head`,
    [table.account.id, chain?.length ? JSON.stringify(chain) : null, JSON.stringify(events), eventTypes(table, change), JSON.stringify(head)],
  );
}
