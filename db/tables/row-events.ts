/** Row and record events written to the outbox in the transaction of the row change (DESIGN.md, Events). */
import type { Knex } from '@mikro-orm/postgresql';
import type { TableHead } from './table-lookups.js';
import type { RowView } from './row-values.js';
import { OUTBOX_PENDING } from '../automations/outbox-notifier.js';

export type RowChange = 'CREATED' | 'UPDATED';

/** Event types of one change: Tables emit TABLE_ROW_*, Objects OBJECT_RECORD_*, and People also CONTACT_*. */
export function eventTypes(table: TableHead, change: RowChange): string[] {
  if (table.kind === 'TABLE') return [`TABLE_ROW_${change}`];
  const types = [`OBJECT_RECORD_${change}`];
  if (table.isSystem && table.name === 'people') types.push(`CONTACT_${change}`);
  return types;
}

export interface RowEvent {
  row: RowView;
  changedFields?: string[];
}

/**
 * `chain`: the automations whose runs made the change, when a workflow node made it (loop prevention).
 *
 * An event that no ACTIVE workflow of the account could start (none has an entry node whose `triggerType` is the
 * event's type: how the TRIGGER node matches row events, nodes/trigger.node.ts) is written already dispatched, so it
 * costs the dispatchers no pass; the statement answers `outbox_pending` (db/automations/outbox-notifier.ts) so that only events
 * still to dispatch wake them. A workflow activated after the change is not started by it.
 */
export async function writeRowEvents(trx: Knex, table: TableHead, change: RowChange, events: RowEvent[], chain?: number[]): Promise<void> {
  if (!events.length) return;
  const statement = rowEventsStatement(table, change, events, chain);
  await trx.raw(`with ${statement.with} ${statement.select}`, statement.bindings);
}

/**
 * The statement of `writeRowEvents` in parts, for a statement that writes the rows too (db/tables/row-insert.ts):
 * its `with` clauses, the `select` answering `outbox_pending`, and their bindings in that order.
 */
export interface RowEventsStatement {
  with: string;
  select: string;
  bindings: Knex.RawBinding[];
}

/** `when`: an SQL condition of the statement's other parts under which the events are written (always without). */
export function rowEventsStatement(table: TableHead, change: RowChange, events: RowEvent[], chain?: number[], when?: string): RowEventsStatement {
  const head = { tableId: table.id, tableName: table.name, kind: table.kind };
  // One JSON document for the whole batch; PostgreSQL builds each event's payload.
  return {
    with: `listened as (
       select t.type, exists (
           select 1 from workflows w
             join graph_snapshots s on s.id = w.live_snapshot_id
             cross join lateral jsonb_array_elements(s.nodes) as n(node)
            where w.account_id = ? and w.status = 'ACTIVE' and w.deleted_at is null and n.node -> 'data' ->> 'triggerType' = t.type) as yes
         from unnest(?::text[]) as t(type)),
     written as (
       insert into outbox_events (account_id, type, payload, chain, created_at, dispatched_at)
       select ?, l.type, json_build_object('tableId', h->'tableId', 'tableName', h->'tableName', 'kind', h->'kind',
                'rowId', e->'row'->'id', 'recordTypeId', e->'row'->'recordTypeId', 'row', e->'row', 'changedFields', e->'changedFields'), ?::json, now(),
              case when l.yes then null else now() end
         from json_array_elements(?::json) as e, listened as l, (select ?::json as h) as head${when ? ` where ${when}` : ''}
       returning dispatched_at)`,
    select: `select exists (select 1 from written where dispatched_at is null) as ${OUTBOX_PENDING}`,
    bindings: [
      table.account.id,
      eventTypes(table, change),
      table.account.id,
      chain?.length ? JSON.stringify(chain) : null,
      JSON.stringify(events),
      JSON.stringify(head),
    ],
  };
}
