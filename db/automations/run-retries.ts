/**
 * Retries of failed runs as the database keeps them (`run-retry.entity.ts`): a retry is queued like a manual run, as
 * a MANUAL_RUN outbox event carrying the new run's whole input, so it waits for admission like every run; its
 * `run_retries` row, written by the same statement, links it to the run it retries (and to its retry job).
 */
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { MANUAL_RUN_EVENT, storedRunPayload, type ManualRunEventPayload } from '../../lib/runtime/queued-runs.js';
import { query, sqlOf } from '../tables/table-lookups.js';

export type RetryFrom = 'failed-node' | 'start';
export type RetryGraph = 'original' | 'live';

/** A retry to queue: the new run (its id and input), the run it retries, and how. */
export interface QueuedRetry {
  run: ManualRunEventPayload;
  originalId: string;
  from: RetryFrom;
  graph: RetryGraph;
  jobId?: string;
}

/**
 * Writes the retry's row and its run's MANUAL_RUN event in one statement; answers the event's id, or null when the
 * job (`jobId`) has already retried this run (nothing is written then). The caller wakes the dispatchers. A job's
 * retry is a background event: it yields to fresh runs at admission (db/automations/admission.ts); a single retry
 * someone asked for is not.
 */
export async function queueRetry(em: EntityManager, retry: QueuedRetry): Promise<string | null> {
  const { request } = retry.run;
  const [row] = await query<{ event_id: string | null }>(
    sqlOf(em),
    `with retry as (
       insert into run_retries (id, account_id, workflow_id, original_id, "from", graph, job_id, created_at)
       values (?, ?, ?, ?, ?, ?, ?, now())
       on conflict (job_id, original_id) where job_id is not null do nothing returning id),
     event as (
       insert into outbox_events (account_id, type, payload, background, created_at)
       select ?, ?, ?::json, ?, now() where exists (select 1 from retry) returning id)
     select (select id from event)::text as event_id`,
    [
      retry.run.runWorkflowId,
      request.accountId,
      request.automationId,
      retry.originalId,
      retry.from,
      retry.graph,
      retry.jobId ?? null,
      request.accountId,
      MANUAL_RUN_EVENT,
      JSON.stringify(storedRunPayload(retry.run)),
      retry.jobId !== undefined,
    ],
  );
  return row?.event_id ?? null;
}

/** One retry link of a run log. */
export interface RetryLink {
  id: string;
  from: RetryFrom;
  graph: RetryGraph;
  job_id: string | null;
  created_at: string;
}

/** The links of a run: the run it retries (null when none) and its retries, oldest first. */
export async function retryLinksOf(
  em: EntityManager,
  accountId: number,
  runWorkflowId: string,
): Promise<{ retryOf: string | null; retries: RetryLink[] }> {
  const rows = await query<{ id: string; original_id: string; from: RetryFrom; graph: RetryGraph; job_id: string | null; created_at: Date }>(
    sqlOf(em),
    `select id, original_id, "from", graph, job_id, created_at from run_retries
      where account_id = ? and (original_id = ? or id = ?) order by created_at, id`,
    [accountId, runWorkflowId, runWorkflowId],
  );
  return {
    retryOf: rows.find((r) => r.id === runWorkflowId)?.original_id ?? null,
    retries: rows
      .filter((r) => r.original_id === runWorkflowId)
      .map((r) => ({ id: r.id, from: r.from, graph: r.graph, job_id: r.job_id, created_at: new Date(r.created_at).toISOString() })),
  };
}

/** How many of a retry job's retries have not ended: waiting for admission (no ledger row yet) or running. */
export async function unfinishedRetries(knex: Knex, jobId: string): Promise<number> {
  const result = await knex.raw(
    `select count(*)::int as n from run_retries r left join workflow_runs w on w.id = r.id
      where r.job_id = ? and (w.status is null or w.status = 'running')`,
    [jobId],
  );
  return result.rows[0].n as number;
}
