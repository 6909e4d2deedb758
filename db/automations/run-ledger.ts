/**
 * The run ledger: one row per automation run, written by the run itself (idempotently, since activities may be
 * retried). A run counts in `runsCount` and `lastRunDate` when it begins and in `runsFailedCount` when it fails.
 * Credits leave the account's balance per AI call, when the call is made (`chargeCredits`), not when the run ends,
 * so a run whose next call would overdraw the balance is stopped before that call.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RunBegin, RunEnd, RunFailureReport } from '../../lib/runtime/contract.js';
import { AUTOMATION_FAILED_EVENT } from '../../lib/events/event-match.js';
import { sqlOf } from '../tables/table-lookups.js';
import { OUTBOX_CHANNEL } from './outbox-notifier.js';
import { releaseAdmission } from './admission.js';

export type { RunBegin, RunEnd } from '../../lib/runtime/contract.js';

/** The address of a run in the Temporal UI (TEMPORAL_UI_URL), by its workflow id and run id. */
export type RunUiLink = (runWorkflowId: string, runId: string) => string;

/**
 * Records the start of a run (once) and answers whether the account has run out of credits, and whether this call
 * recorded it (false on a repeated call). One statement (a round trip, committed alone): the balance is read, the
 * ledger row inserted, and the automation's row, which every run of it updates, is updated last (it reads the
 * inserted row), so that its lock is held only until the statement commits.
 */
export async function beginRun(em: EntityManager, run: RunBegin): Promise<{ insufficientCredits: boolean; recorded: boolean }> {
  const result = await sqlOf(em).raw(
    `with account as (select credit_balance from accounts where id = ?),
          inserted as (
            insert into workflow_runs (id, account_id, workflow_id, trigger_type, event_id, started_at, snapshot_id)
            select ?, ?, w.id, ?, ?, ?, ? from workflows w where w.id = ? and w.account_id = ?
            on conflict (id) do nothing returning workflow_id),
          counted as (
            update workflows set runs_count = runs_count + 1, last_run_date = greatest(coalesce(last_run_date, ?::timestamptz), ?::timestamptz)
             where id in (select workflow_id from inserted) returning id)
     select (select credit_balance from account) as credit_balance, (select count(*)::int from counted) as recorded`,
    [
      run.accountId,
      run.id,
      run.accountId,
      run.triggerType,
      run.eventId ?? null,
      run.startedAt,
      run.snapshotId ?? null,
      run.automationId,
      run.accountId,
      run.startedAt,
      run.startedAt,
    ],
  );
  const row = result.rows[0] as { credit_balance: number | null; recorded: number };
  return { insufficientCredits: row.credit_balance !== null && row.credit_balance <= 0, recorded: row.recorded > 0 };
}

/**
 * Records the end of run `run.id` once (a second call changes nothing) and frees its admission slot: a failed run
 * counts in its workflow's failures; when events wait for the slot, a NOTIFY of the same statement (delivered at its
 * commit) wakes the dispatchers. Two statements, the slot's release first: the waiting events are read after the
 * release committed, so an event committed later is announced by its own writer and finds the slot free. Answers the
 * run's trigger type (null when it had already ended).
 */
export async function finishRun(em: EntityManager, run: RunEnd, uiLink?: RunUiLink): Promise<string | null> {
  const knex = sqlOf(em);
  const freed = await releaseAdmission(knex, run.id);
  const failure = run.status === 'failed' && run.failure ? failureEventOf(run, run.failure, uiLink) : null;
  const updated = await knex.raw(
    `with ended as (
       update workflow_runs set status = ?, operations = ?, ai_credits = ?, error = ?, prevented_loop = ?, insufficient_credits = ?, completed_at = ?
        where id = ? and status = 'running' returning account_id, workflow_id, trigger_type),
     failed as (
       update workflows set runs_failed_count = runs_failed_count + 1 where id in (select workflow_id from ended) and ?::text = 'failed' returning id),
     ${FAILURE_EVENT},
     woken as (
       select pg_notify(?, '') where exists (select 1 from failure_event)
          or (? and exists (select 1 from outbox_events where dispatched_at is null and dead_lettered_at is null)))
     select (select trigger_type from ended) as trigger_type, (select count(*) from failed) as failed, (select count(*) from woken) as woken`,
    [
      run.status,
      run.operations,
      run.aiCredits,
      run.error ?? null,
      !!run.preventedLoop,
      !!run.insufficientCredits,
      run.completedAt,
      run.id,
      run.status,
      AUTOMATION_FAILED_EVENT,
      failure && JSON.stringify(failure.payload),
      failure && JSON.stringify(failure.chain),
      !!failure,
      AUTOMATION_FAILED_EVENT,
      OUTBOX_CHANNEL,
      freed,
    ],
  );
  return (updated.rows[0] as { trigger_type: string | null }).trigger_type;
}

/**
 * The AUTOMATION_FAILED event of a run that ended failed (written once: only by the call that ended it), when an
 * ACTIVE workflow of the account has a TRIGGER node listening to this workflow's failures (nodes/trigger.node.ts);
 * nobody listening, nothing is written. Its payload gets the failed run's workflow id here; its chain is the failed
 * run's, so a workflow failing from its own failure event is stopped as a loop.
 */
const FAILURE_EVENT = `failure_event as (
       insert into outbox_events (account_id, type, payload, chain, created_at)
       select e.account_id, ?, (?::jsonb || jsonb_build_object('automationId', e.workflow_id))::json, ?::json, now() from ended e
        where ?::boolean and exists (
          select 1 from workflows w
            join graph_snapshots s on s.id = w.live_snapshot_id
            cross join lateral jsonb_array_elements(s.nodes) as n(node)
           where w.account_id = e.account_id and w.status = 'ACTIVE' and w.deleted_at is null
             and n.node -> 'data' ->> 'triggerType' = ? and n.node -> 'data' -> 'triggeredByWorkflowIds' @> to_jsonb(e.workflow_id))
       returning id)`;

/** The payload (without `automationId`, which the statement adds) and chain of a failed run's AUTOMATION_FAILED event. */
function failureEventOf(run: RunEnd, failure: RunFailureReport, uiLink?: RunUiLink): { payload: Record<string, unknown>; chain: number[] } {
  const payload = {
    logId: run.id,
    temporalWorkflowId: run.id,
    temporalRunId: failure.runId,
    failedNode: failure.node,
    error: failure.error,
    triggerType: failure.triggerType,
    triggerPayload: failure.triggerPayload,
    failedAt: run.completedAt,
    temporalUiUrl: uiLink?.(run.id, failure.runId) ?? null,
  };
  return { payload, chain: failure.chain };
}

/** Takes `credits` from the account's balance for one AI call, before the call is made, unless that would take the
 * balance below zero: answers false then, and nothing changes. One statement, so concurrent runs of the account
 * cannot overdraw it together. Accounts without a balance (unlimited) always pay.
 */
export async function chargeCredits(em: EntityManager, accountId: number, credits: number): Promise<boolean> {
  const charged = await sqlOf(em).raw(
    `update accounts set credit_balance = credit_balance - ? where id = ? and credit_balance is not null and credit_balance - ? >= 0 returning id`,
    [credits, accountId, credits],
  );
  if (charged.rows.length) return true;
  const account = await sqlOf(em).raw(`select credit_balance from accounts where id = ?`, [accountId]);
  return account.rows[0]?.credit_balance == null;
}

/** Gives back what `chargeCredits` took for a call that failed. */
export async function refundCredits(em: EntityManager, accountId: number, credits: number): Promise<void> {
  await sqlOf(em).raw(`update accounts set credit_balance = credit_balance + ? where id = ? and credit_balance is not null`, [credits, accountId]);
}

/** Runs still `running` in the ledger that started before `before` (candidates for the sweep of ended executions). */
export async function staleRuns(em: EntityManager, before: Date, limit: number): Promise<string[]> {
  const result = await em
    .getKnex()
    .raw(`select id from workflow_runs where status = 'running' and started_at < ? order by started_at limit ?`, [before.toISOString(), limit]);
  return result.rows.map((r: { id: string }) => r.id);
}
