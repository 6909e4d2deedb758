/**
 * Admission control of automation runs (README, Processes and scaling out): the outbox is the queue, and the
 * dispatcher starts a run only while the runs in flight (`admitted_runs` rows not finished) are fewer than the
 * bound, and fewer than the automation's `concurrencyLimit` when it has one. Dispatchers take turns admitting under a
 * transaction-level advisory lock, so two of them never both fill the last free slot; the count itself is in the
 * database, so it survives any dispatcher or worker dying.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { type Claim, claimOf, claimStatement, PICK_PENDING_EVENTS } from './event-subscribers.js';

/** The advisory lock (one key for the whole database) under which one dispatcher at a time admits runs. */
const ADMISSION_LOCK_KEY = 1_414_001;

/**
 * The share of the bound that background runs (a retry job's retries) may fill, at least one slot: the rest stays
 * free for fresh runs, which are also picked before any background event (PICK_PENDING_EVENTS).
 */
export const BACKGROUND_SHARE = 0.125;

/** The slots of `bound` that background runs may fill. */
export function backgroundSlots(bound: number): number {
  return Math.max(1, Math.floor(bound * BACKGROUND_SHARE));
}

/** A dispatcher's pass under the admission lock: the runs in flight, and the events it claimed (when slots are free). */
export interface AdmissionPass {
  inFlight: number;
  /** The background runs among them. */
  backgroundInFlight: number;
  /** The events claimed (`PICK_PENDING_EVENTS`, then `claimStatement`); none when no slot is free. */
  claim: Claim;
}

/**
 * Takes the admission lock for the transaction `trx` and answers the runs in flight over every account and, when
 * they are fewer than `bound`, claims up to `limit` events to handle next; null when another dispatcher holds the
 * lock (it is admitting). Two round trips: the lock, then the count and the claim. In one statement the count would
 * read the snapshot taken when the statement began, before the lock was granted, and miss the runs a dispatcher
 * that committed in between had just admitted: both would fill the same free slots (a bound of 2 ran 4). The claim's
 * row locks recheck each picked event, so one another dispatcher handled meanwhile is left out.
 */
export async function lockAdmission(
  trx: Knex,
  bound: number,
  limit: number,
  entryTypes: readonly string[],
  ownRuns: readonly string[],
): Promise<AdmissionPass | null> {
  const lock = await trx.raw(`select pg_try_advisory_xact_lock(?) as locked`, [ADMISSION_LOCK_KEY]);
  if (lock.rows[0].locked !== true) return null;
  const claim = claimStatement(`(select ids from picked)::bigint[]`, entryTypes, ownRuns);
  const result = await trx.raw(
    `with pass as materialized (
       select count(*)::int as in_flight, (count(*) filter (where background))::int as background_in_flight
         from admitted_runs where finished_at is null),
     picked as materialized (
       select case when in_flight < ? then array(${PICK_PENDING_EVENTS}) end as ids from pass),
     ${claim.with}
     select (select in_flight from pass) as in_flight, (select background_in_flight from pass) as background_in_flight,
            (select ids from picked) as picked, ${claim.columns}`,
    [bound, limit, limit, ...claim.bindings],
  );
  const row = result.rows[0] as { in_flight: number; background_in_flight: number; picked: string[] | null } & Parameters<typeof claimOf>[0];
  return { inFlight: row.in_flight, backgroundInFlight: row.background_in_flight, claim: claimOf(row, (row.picked ?? []).map(String)) };
}

export interface AutomationLimit {
  limit: number;
  inFlight: number;
}

/** The automations among `automationIds` that set a concurrency limit, with their runs in flight. */
export async function automationLimits(knex: Knex, automationIds: number[]): Promise<Map<number, AutomationLimit>> {
  if (!automationIds.length) return new Map();
  const result = await knex.raw(
    `select w.id, w.concurrency_limit,
            (select count(*)::int from admitted_runs a where a.workflow_id = w.id and a.finished_at is null) as in_flight
       from workflows w where w.id = any(?::int[]) and w.concurrency_limit is not null`,
    [automationIds],
  );
  type Row = { id: number; concurrency_limit: number; in_flight: number };
  return new Map(result.rows.map((r: Row) => [r.id, { limit: r.concurrency_limit, inFlight: r.in_flight }]));
}

export interface Admission {
  /** The run's Temporal workflow id. */
  id: string;
  accountId: number;
  automationId: number;
  /** Admitted from a background event. */
  background: boolean;
}

/**
 * Marks events dispatched and counts the runs they started as in flight, in one statement of the transaction that
 * claimed them. It comes after the starts: a run that ends before it has left a finished row (releaseAdmission), which
 * stays finished; one that ends before the commit waits for it. Nothing counts the runs meanwhile, since every pass
 * holds the admission lock until its commit. A run already known (an event dispatched again after a crash) keeps its
 * row.
 */
export async function recordDispatched(trx: Knex, eventIds: string[], runs: Admission[]): Promise<void> {
  if (!eventIds.length && !runs.length) return;
  await trx.raw(
    `with admitted as (
       insert into admitted_runs (id, account_id, workflow_id, background, admitted_at)
       select id, account_id, workflow_id, background, now()
         from unnest(?::text[], ?::int[], ?::int[], ?::boolean[]) as r(id, account_id, workflow_id, background)
       on conflict (id) do nothing)
     update outbox_events set dispatched_at = now() where id = any(?::bigint[])`,
    [runs.map((r) => r.id), runs.map((r) => r.accountId), runs.map((r) => r.automationId), runs.map((r) => r.background), eventIds],
  );
}

/**
 * Marks a run finished, freeing its slot; answers whether anything changed. An upsert, not an update: a run that
 * ends before the transaction admitting it has committed waits here for that commit (the primary key) instead of
 * missing the row, and a run never admitted (one started before admission existed) leaves a finished row.
 */
export async function releaseAdmission(knex: Knex, id: string): Promise<boolean> {
  const result = await knex.raw(
    `insert into admitted_runs (id, finished_at) values (?, now())
     on conflict (id) do update set finished_at = excluded.finished_at where admitted_runs.finished_at is null
     returning id`,
    [id],
  );
  return result.rows.length > 0;
}

/** Admitted runs still in flight that were admitted before `before` (for the sweep to check against Temporal). */
export async function staleAdmissions(knex: Knex, before: Date, limit: number): Promise<string[]> {
  const result = await knex.raw(`select id from admitted_runs where finished_at is null and admitted_at < ? order by admitted_at limit ?`, [
    before.toISOString(),
    limit,
  ]);
  return result.rows.map((r: { id: string }) => r.id);
}

/** Forgets finished runs that ended before `before`; an hour is far longer than any redelivery takes. */
export async function pruneAdmissions(knex: Knex, before: Date): Promise<number> {
  const result = await knex.raw(`delete from admitted_runs where finished_at < ?`, [before.toISOString()]);
  return result.rowCount ?? 0;
}

export interface AdmissionWindowEdge {
  /** The database's time. */
  at: Date;
  /** Runs that ended since the window began. */
  ended: number;
  /** Whether outbox events wait for admission (pending, not parked, not failed for later). */
  waiting: boolean;
  /** Runs in flight. */
  inFlight: number;
}

/** One edge of a tuning window of the admission bound (worker/admission-bound.ts) that began at `since`. */
export async function admissionWindow(knex: Knex, since: Date): Promise<AdmissionWindowEdge> {
  const result = await knex.raw(
    `select now() as at,
            (select count(*)::int from admitted_runs where finished_at > ?) as ended,
            exists (select 1 from outbox_events where dispatched_at is null and dead_lettered_at is null
                      and (next_attempt_at is null or next_attempt_at <= now())) as waiting,
            (select count(*)::int from admitted_runs where finished_at is null) as in_flight`,
    [since.toISOString()],
  );
  const row = result.rows[0] as { at: Date; ended: number; waiting: boolean; in_flight: number };
  return { at: new Date(row.at), ended: row.ended, waiting: row.waiting, inFlight: row.in_flight };
}

/** How long finished admissions are kept. */
export const ADMISSION_RETENTION_MS = 3_600_000;

/** Records that the worker process `identity` is alive and serves runs on `taskQueue`. */
export async function markWorkerAlive(knex: Knex, identity: string, taskQueue: string): Promise<void> {
  await knex.raw(
    `insert into worker_heartbeats (identity, task_queue, checks, first_seen_at, last_seen_at) values (?, ?, 0, now(), now())
     on conflict (identity) do update set task_queue = excluded.task_queue, last_seen_at = now()`,
    [identity, taskQueue],
  );
}

/** Worker processes serving runs on `taskQueue` seen in the last `withinMs`. */
export async function liveWorkers(knex: Knex, taskQueue: string, withinMs: number): Promise<number> {
  const result = await knex.raw(
    `select count(*)::int as n from worker_heartbeats where task_queue = ? and last_seen_at > now() - (? * interval '1 millisecond')`,
    [taskQueue, withinMs],
  );
  return result.rows[0].n as number;
}
