/**
 * Retry jobs (`POST /workflows/{id}/retries`): a job retries the failed runs of a workflow that a filter finds, as
 * the `retryRuns` Temporal workflow (`retry-job:<jobId>`); its row (`retry_jobs`) says what it was asked and how far
 * it got, and its retries' `run_retries` rows with the run ledger count them. `dryRun` answers the count and a sample.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { Account } from '../../db/accounts/account.entity.js';
import type { Automation } from '../../db/automations/automation.entity.js';
import { RetryJob, type RetryJobRequest } from '../../db/automations/retry-job.entity.js';
import { query, sqlOf } from '../../db/tables/table-lookups.js';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { retryJobQuery, retryJobWorkflowId } from '../../lib/runtime/retry-jobs.js';

/** Longest window a job may cover. */
const MAX_WINDOW_MS = 31 * 86_400_000;
/**
 * The job's rate: retries queued per batch, and the pause between batches (50 runs/s at most); a batch waits, too,
 * until fewer than a batch of the job's retries are unfinished, and admission runs them behind fresh runs.
 */
export const RETRY_JOB_BATCH = { batchSize: 10, pauseMs: 200 };

export type RetryJobBody = RetryJobRequest & { dryRun?: boolean };

export async function startRetryJob(em: EntityManager, temporal: Client, taskQueue: string, automation: Automation, body: RetryJobBody) {
  const { filter } = body;
  const from = Date.parse(filter.from);
  const to = Date.parse(filter.to);
  if (!(to > from)) throw new BadRequestError('filter.to must be after filter.from', 'filter.to');
  if (to - from > MAX_WINDOW_MS) throw new BadRequestError('The window of filter.from to filter.to may be at most 31 days', 'filter.to');
  const request: RetryJobRequest = { filter, from: body.from, graph: body.graph };
  if (body.dryRun) {
    const visibility = retryJobQuery(automation.account.id, automation.id, filter);
    const { count } = await temporal.workflow.count(visibility);
    const page = await temporal.workflowService.listWorkflowExecutions({ namespace: temporal.options.namespace, query: visibility, pageSize: 10 });
    return { dryRun: true, count, sample: (page.executions ?? []).map((e) => e.execution?.workflowId ?? '') };
  }
  const job = em.create(RetryJob, {
    id: randomUUID(),
    account: em.getReference(Account, automation.account.id),
    automation,
    request,
  });
  await em.flush();
  await temporal.workflow.start('retryRuns', {
    taskQueue,
    workflowId: retryJobWorkflowId(job.id),
    args: [{ jobId: job.id, ...RETRY_JOB_BATCH }],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    // What the Temporal UI shows of the job: what it retries, and the whole request.
    staticSummary: retryJobSummary(automation.id, request),
    staticDetails: JSON.stringify(request),
  });
  return getRetryJob(em, automation, job.id);
}

/** The job's summary in the Temporal UI: a batch retry of which runs, how. */
export function retryJobSummary(automationId: number, { filter, from, graph }: RetryJobRequest): string {
  const narrowed = [
    filter.nodeId ? ` at node ${filter.nodeId}` : '',
    filter.errorContains ? ` with "${filter.errorContains}" in their error` : '',
  ].join('');
  return `Retry job: the runs of workflow ${automationId} that failed${narrowed} from ${filter.from} to ${filter.to}, retried from ${from} on the ${graph} graph`;
}

/** A job of the automation with its counts; 404 when it is another automation's (or account's). */
export async function getRetryJob(em: EntityManager, automation: Automation, jobId: string) {
  const job = await em.findOne(RetryJob, { id: jobId, automation: automation.id, account: automation.account.id });
  if (!job) throw new NotFoundError(`Retry job ${jobId} not found for workflow ${automation.id}`);
  const [counts] = await query<{ started: number; succeeded: number; failed: number; running: number }>(
    sqlOf(em),
    `select count(*)::int as started,
            count(*) filter (where w.status = 'successful')::int as succeeded,
            count(*) filter (where w.status in ('failed', 'cancelled'))::int as failed,
            count(*) filter (where w.status is null or w.status = 'running')::int as running
       from run_retries r left join workflow_runs w on w.id = r.id where r.job_id = ?`,
    [jobId],
  );
  return {
    id: job.id,
    workflowId: automation.id,
    status: job.status,
    request: job.request,
    planned: job.planned ?? null,
    ...counts!,
    temporalWorkflowId: retryJobWorkflowId(job.id),
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

/** Cancels a running job (its retries already queued still run); an ended job is answered as it is. */
export async function cancelRetryJob(em: EntityManager, temporal: Client, automation: Automation, jobId: string) {
  const job = await getRetryJob(em, automation, jobId);
  if (job.status !== 'running') return job;
  try {
    await temporal.workflow.getHandle(retryJobWorkflowId(jobId)).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  return job;
}
