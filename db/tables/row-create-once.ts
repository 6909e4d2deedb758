/**
 * A workflow node's create of one row in one statement, recorded once under the node execution's key with its claim
 * (`claimEffects`, as `onceWrites` records an effect, db/node-effects/node-effects.ts): no transaction and no read
 * of the table first, one round trip where the general path takes five. It serves the common row (of a Table, without
 * formulas, relations or users) of a table this process has read before (`cachedTable`). The statement locks the
 * table's row FOR SHARE, as every row write does, and writes only while the table has the schema version and name the
 * row was built for. Anything else answers null having written nothing, and the caller takes the general path.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { claimEffects, recordedEffect } from '../node-effects/node-effects.js';
import { cachedTable } from './table-lookups.js';
import { newObjectId } from './object-id.js';
import { rowEventsStatement } from './row-events.js';
import { insertStatement } from './row-insert.js';
import { prepareRow, rowView, type PreparedRow, type RowView } from './row-values.js';
import { hasFormulas } from './rows.service.js';
import type { FieldModel } from './types.js';

export interface RowCreatedOnce {
  accountId: number;
  tableId: number;
  /** The row's values, made for the table's fields. */
  values: (fields: FieldModel[]) => Record<string, unknown>;
  /** Automations whose runs make the change (their row event carries it). */
  chain?: number[];
  /** The node execution's key: a row recorded under it is not created again, and its view is answered. */
  executionKey: string;
}

/** The statement's condition for writing: the key was claimed (so the table was current too). */
const CLAIMED = 'exists (select 1 from claimed)';

/** The created row's view (or the one recorded under the key before), or null: take the general path. */
export async function createRowOnce(em: EntityManager, request: RowCreatedOnce): Promise<RowView | null> {
  const cached = cachedTable(request.accountId, request.tableId);
  if (!cached || cached.head.kind !== 'TABLE' || hasFormulas(cached.fields)) return null;
  const { head, fields } = cached;
  const now = new Date();
  let prepared: PreparedRow;
  try {
    prepared = prepareRow(fields, request.values(fields), 'create', { now });
  } catch {
    return null; // the general path says what is wrong, against the table's current fields
  }
  if (prepared.links.size || prepared.relationRefs.size || prepared.userRefs.size) return null;
  const stamp = now.toISOString();
  const record = { id: newObjectId(now), record_type_id: null, created_at: stamp, updated_at: stamp, ...prepared.columns };
  const view = rowView(fields, record, prepared.links);
  const events = rowEventsStatement(head, 'CREATED', [{ row: view }], request.chain, CLAIMED);
  const result = await em.getKnex().raw(
    `with current_table as materialized (
       select id from data_tables where id = ? and account_id = ? and schema_version = ? and name = ? and kind = 'TABLE' for share),
     claimed as (${claimEffects('select ?::text, ?::jsonb where exists (select 1 from current_table)')}),
     inserted as (${insertStatement(head.id, fields, CLAIMED)}),
     ${events.with}
     ${events.select}, exists (select 1 from current_table) as current, ${CLAIMED} as claimed`,
    [
      head.id,
      head.account.id,
      head.schemaVersion,
      head.name,
      request.executionKey,
      JSON.stringify(view),
      JSON.stringify([record]),
      ...events.bindings,
    ],
  );
  const row = result.rows[0] as { current: boolean; claimed: boolean };
  if (!row.current) return null;
  if (row.claimed) return view;
  // An earlier attempt of the execution created the row: its view, as recorded.
  return (await recordedEffect<RowView>(em, request.executionKey)) ?? null;
}
