/**
 * The database side of dispatching outbox events: claiming undelivered events (row locks, SKIP LOCKED, so any
 * number of dispatchers share the work), finding the entry nodes of ACTIVE workflows' live graphs, loading those
 * (immutable) graphs, and recording the outcome of each event: dispatched, or failed with backoff and, after too
 * many failures, parked (dead-lettered) until an operator requeues it.
 */
import type { Knex } from '@mikro-orm/postgresql';
import type { AutomationEvent } from '../../lib/events/event-match.js';
import type { Graph, GraphNode } from '../../lib/graph/graph.js';

export interface PendingEvent extends AutomationEvent {
  id: string;
  accountId: number;
  /** Automations whose runs caused the event, oldest first (null: not caused by a run). */
  chain: number[] | null;
  /** Failed dispatch attempts before this one. */
  attempts: number;
  /** When the event was written. */
  createdAt: Date;
  /** A run that yields to every other (a retry job's retry; `OutboxEvent.background`). */
  background: boolean;
}

export interface Subscriber {
  automationId: number;
  snapshotId: string;
  entry: GraphNode;
}

/** The outbox events a dispatcher may claim: not dispatched, not parked, not waiting out the backoff of a failed attempt. */
const DUE = `dispatched_at is null and dead_lettered_at is null and (next_attempt_at is null or next_attempt_at <= now())`;

/**
 * The ids of up to `limit` undelivered events to claim next, in the order they are to be handled (a subquery of
 * `lockAdmission`'s statement, db/automations/admission.ts; its two parameters are both `limit`). Parked events and
 * events waiting out the backoff of a failed attempt are left alone. The events come round-robin by account (each
 * account's oldest first, then each account's second, …), counting the runs an account already has in flight as
 * turns it has had: when slots free up one at a time, the account with fewer runs in flight goes first, so one
 * account's burst never stands in front of another account's single event; within an account they keep their order.
 * Background events (a retry job's retries) come after every other event, of any account, and among themselves in
 * the same round-robin.
 */
export const PICK_PENDING_EVENTS = `select e.id from (select distinct account_id from outbox_events where dispatched_at is null and dead_lettered_at is null) a
       cross join lateral (select count(*) as running from admitted_runs r where r.account_id = a.account_id and r.finished_at is null) f
       cross join lateral (
         select id, background, row_number() over (order by background, id) as turn from (
           select id, background from outbox_events o where o.account_id = a.account_id and ${DUE} order by background, id limit ?
         ) first) e
      order by e.background, e.turn + f.running, e.id limit ?`;

/** The columns of an outbox row that dispatching reads. */
export const PENDING_EVENT_COLUMNS = 'id, account_id, type, payload, chain, attempts, created_at, background';

/** An outbox row as a pending event: from a row, or from its JSON (`claimOf`: the id a number, the time a string). */
export function pendingEventOf(r: {
  id: string | number;
  account_id: number;
  type: string;
  payload: Record<string, unknown>;
  chain: number[] | null;
  attempts: number;
  created_at: Date | string;
  background?: boolean | null;
}): PendingEvent {
  return {
    id: String(r.id),
    accountId: r.account_id,
    type: r.type,
    payload: r.payload ?? {},
    chain: r.chain,
    attempts: r.attempts,
    createdAt: new Date(r.created_at),
    background: r.background === true,
  };
}

/** How failed events are retried: the wait after the n-th failure is `baseMs * 2^(n-1)` (capped), up to `maxAttempts`. */
export interface RetryPolicy {
  maxAttempts: number;
  baseMs: number;
  maxMs: number;
}

/**
 * Records a failed dispatch of each event: one more attempt, the error, and the time of the next attempt; the
 * attempt that reaches `maxAttempts` parks the event instead.
 */
export async function markFailed(trx: Knex, failures: { event: PendingEvent; error: string }[], policy: RetryPolicy): Promise<void> {
  for (const { event, error } of failures) {
    const attempts = event.attempts + 1;
    const waitMs = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempts - 1));
    await trx.raw(
      `update outbox_events set attempts = ?, last_error = ?, next_attempt_at = now() + (? * interval '1 millisecond'),
              dead_lettered_at = case when ? then now() else null end
        where id = ?`,
      [attempts, error.slice(0, 2000), waitMs, attempts >= policy.maxAttempts, event.id],
    );
  }
}

/** A parked event, as the admin command lists it. */
export interface ParkedEvent {
  id: string;
  accountId: number;
  type: string;
  attempts: number;
  lastError: string | null;
  parkedAt: string;
}

export async function listParkedEvents(knex: Knex, limit = 100): Promise<ParkedEvent[]> {
  const result = await knex.raw(
    `select id, account_id, type, attempts, last_error, dead_lettered_at from outbox_events where dead_lettered_at is not null order by id limit ?`,
    [limit],
  );
  type Row = { id: string; account_id: number; type: string; attempts: number; last_error: string | null; dead_lettered_at: Date };
  return result.rows.map((r: Row) => ({
    id: String(r.id),
    accountId: r.account_id,
    type: r.type,
    attempts: r.attempts,
    lastError: r.last_error,
    parkedAt: new Date(r.dead_lettered_at).toISOString(),
  }));
}

/** Puts parked events back in the queue with a fresh count of attempts (`ids` omitted: every parked event). */
export async function requeueParkedEvents(knex: Knex, ids?: string[]): Promise<number> {
  const result = await knex.raw(
    `update outbox_events set dead_lettered_at = null, attempts = 0, next_attempt_at = null
      where dead_lettered_at is not null ${ids ? 'and id = any(?::bigint[])' : ''}`,
    ids ? [ids] : [],
  );
  return result.rowCount ?? 0;
}

/** A candidate entry node of an ACTIVE workflow's live graph. */
export interface EntryCandidate {
  accountId: number;
  automationId: number;
  snapshotId: string;
  node: GraphNode;
  /** The workflow sets a concurrency limit (its runs in flight are then counted when it is admitted). */
  limited: boolean;
}

/** A dispatcher's claim: the events it locked, in the order picked, and the entry nodes they may start. */
export interface Claim {
  events: PendingEvent[];
  /** The entry nodes of `entryTypes` in the live graphs of the ACTIVE workflows of the claimed events' accounts. */
  candidates: EntryCandidate[];
}

/**
 * The part of the admission pass's statement (`lockAdmission`, db/automations/admission.ts) that locks the picked
 * events: `picked` is the SQL of their ids (a bigint[]), in the order to handle them. It locks them for the
 * transaction (others skip them, and an event another dispatcher handled meanwhile is left out) and finds the entry
 * nodes of `entryTypes` in the live graphs of the ACTIVE workflows of their accounts; events of `ownRuns` types carry
 * their run (or workflow) themselves and need none. Which candidates an event starts is for the caller to match.
 */
export function claimStatement(
  picked: string,
  entryTypes: readonly string[],
  ownRuns: readonly string[],
): { with: string; columns: string; bindings: string[][] } {
  return {
    with: `claimed as materialized (
       select ${PENDING_EVENT_COLUMNS} from outbox_events where id = any(${picked}) and ${DUE} for update skip locked)`,
    columns: `(select coalesce(json_agg(c), '[]') from claimed c) as events,
            (select coalesce(json_agg(x order by x.workflow_id), '[]') from (
               select w.account_id, w.id as workflow_id, s.id as snapshot_id, n.node, w.concurrency_limit is not null as limited
                 from workflows w
                 join graph_snapshots s on s.id = w.live_snapshot_id
                 cross join lateral jsonb_array_elements(s.nodes) as n(node)
                where w.account_id in (select account_id from claimed where type <> all(?::text[]))
                  and w.status = 'ACTIVE' and w.deleted_at is null and n.node->>'type' = any(?::text[])) x) as candidates`,
    bindings: [[...ownRuns], [...entryTypes]],
  };
}

/** The claim of `claimStatement`'s columns, its events in the order of `picked`. */
export function claimOf(row: { events: Parameters<typeof pendingEventOf>[0][]; candidates: CandidateRow[] }, picked: string[]): Claim {
  const order = new Map(picked.map((id, i) => [id, i]));
  return {
    events: row.events.map(pendingEventOf).sort((a, b) => order.get(a.id)! - order.get(b.id)!),
    candidates: row.candidates.map((r) => ({
      accountId: r.account_id,
      automationId: r.workflow_id,
      snapshotId: r.snapshot_id,
      node: r.node,
      limited: r.limited,
    })),
  };
}

type CandidateRow = { account_id: number; workflow_id: number; snapshot_id: string; node: GraphNode; limited: boolean };

export async function loadGraphs(trx: Knex, snapshotIds: string[]): Promise<Map<string, Graph>> {
  if (!snapshotIds.length) return new Map();
  const result = await trx.raw(`select id, nodes, edges from graph_snapshots where id = any(?::text[])`, [snapshotIds]);
  return new Map(result.rows.map((r: { id: string; nodes: Graph['nodes']; edges: Graph['edges'] }) => [r.id, { nodes: r.nodes, edges: r.edges }]));
}

/** How many events wait, how old the oldest is, and how many are parked (for the metrics). */
export async function outboxState(knex: Knex): Promise<{ pending: number; oldestPendingSeconds: number; parked: number }> {
  const result = await knex.raw(
    `select (select count(*) from outbox_events where dispatched_at is null and dead_lettered_at is null) as pending,
            (select coalesce(extract(epoch from now() - min(created_at)), 0) from outbox_events where dispatched_at is null and dead_lettered_at is null) as oldest,
            (select count(*) from outbox_events where dead_lettered_at is not null) as parked`,
  );
  const row = result.rows[0];
  return { pending: Number(row.pending), oldestPendingSeconds: Number(row.oldest), parked: Number(row.parked) };
}
