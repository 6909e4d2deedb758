/**
 * The database side of dispatching outbox events: claiming undelivered events (row locks, SKIP LOCKED, so any
 * number of dispatchers share the work), finding the entry nodes of ACTIVE workflows' live graphs that an event
 * starts, and loading those (immutable) graphs.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { EVENT_ENTRY_TYPES, entryMatches, type AutomationEvent } from '../../lib/events/event-match.js';
import type { Graph, GraphNode } from '../../lib/graph/graph.js';

export interface PendingEvent extends AutomationEvent {
  id: string;
  accountId: number;
  /** Automations whose runs caused the event, oldest first (null: not caused by a run). */
  chain: number[] | null;
}

export interface Subscriber {
  workflowId: number;
  snapshotId: string;
  entry: GraphNode;
}

/** Locks up to `limit` undelivered events, oldest first, for the transaction `trx`; others skip them. */
export async function claimPendingEvents(trx: Knex, limit: number): Promise<PendingEvent[]> {
  const result = await trx.raw(
    `select id, account_id, type, payload, chain from outbox_events where dispatched_at is null order by id limit ? for update skip locked`,
    [limit],
  );
  return result.rows.map((r: { id: string; account_id: number; type: string; payload: Record<string, unknown>; chain: number[] | null }) => ({
    id: String(r.id),
    accountId: r.account_id,
    type: r.type,
    payload: r.payload ?? {},
    chain: r.chain,
  }));
}

export async function markDispatched(trx: Knex, ids: string[]): Promise<void> {
  if (ids.length) await trx.raw(`update outbox_events set dispatched_at = now() where id = any(?::bigint[])`, [ids]);
}

/**
 * For each event, the entry nodes of the live graphs of its account's ACTIVE workflows that it starts. One query
 * per batch: the candidate entry nodes of every account concerned, matched to the events here.
 */
export async function findSubscribers(trx: Knex, events: PendingEvent[]): Promise<Map<string, Subscriber[]>> {
  const accounts = [...new Set(events.map((e) => e.accountId))];
  const result = accounts.length
    ? await trx.raw(
        `select w.account_id, w.id as workflow_id, s.id as snapshot_id, n.node
           from workflows w
           join graph_snapshots s on s.id = w.live_snapshot_id
           cross join lateral jsonb_array_elements(s.nodes) as n(node)
          where w.account_id = any(?::int[]) and w.status = 'ACTIVE' and w.deleted_at is null and n.node->>'type' = any(?::text[])
          order by w.id`,
        [accounts, EVENT_ENTRY_TYPES],
      )
    : { rows: [] };
  const candidates: { account_id: number; workflow_id: number; snapshot_id: string; node: GraphNode }[] = result.rows;
  return new Map(
    events.map((event) => [
      event.id,
      candidates
        .filter((c) => c.account_id === event.accountId && entryMatches(c.node, event))
        .map((c) => ({ workflowId: c.workflow_id, snapshotId: c.snapshot_id, entry: c.node })),
    ]),
  );
}

export async function loadGraphs(trx: Knex, snapshotIds: string[]): Promise<Map<string, Graph>> {
  if (!snapshotIds.length) return new Map();
  const result = await trx.raw(`select id, nodes, edges from graph_snapshots where id = any(?::text[])`, [snapshotIds]);
  return new Map(result.rows.map((r: { id: string; nodes: Graph['nodes']; edges: Graph['edges'] }) => [r.id, { nodes: r.nodes, edges: r.edges }]));
}
