/**
 * The activities of a retry job (`workflows/retry-runs.workflow.ts`): listing the failed runs its filter finds, from
 * Temporal visibility, and queueing retries of some of them (each through the outbox, so admission bounds them like
 * every run). Both are safe to repeat: the plan is the same list, and a run is retried at most once per job (the
 * unique index of `run_retries`), so a repeated batch queues nothing twice.
 */
import type { Client } from '@temporalio/client';
import { Automation } from '../db/automations/automation.entity.js';
import { RetryJob } from '../db/automations/retry-job.entity.js';
import { queueRetry, unfinishedRetries } from '../db/automations/run-retries.js';
import { OUTBOX_CHANNEL } from '../db/automations/outbox-notifier.js';
import type { Orm } from '../db/orm.js';
import { prepareRetry } from '../integrations/temporal/run-retries.js';
import { AppError } from '../lib/errors.js';
import { retryJobQuery } from '../lib/runtime/retry-jobs.js';
import { nodeFactsOf } from '../nodes/registry.js';

/** Most runs one job plans: a bigger outage is retried by more jobs, narrowed by time. */
export const MAX_PLANNED_RUNS = 10_000;
/** How long one `awaitUnfinishedRetries` waits at most, and how often it looks. */
const UNFINISHED_WAIT_MS = 30_000;
const UNFINISHED_POLL_MS = 200;

export function createRetryJobActivities(orm: Orm, temporal: Client) {
  return {
    /** The failed runs the job's filter finds, oldest first (at most MAX_PLANNED_RUNS); records how many. */
    planRetries: async (jobId: string): Promise<string[]> => {
      const em = orm.em.fork();
      const job = await em.findOneOrFail(RetryJob, { id: jobId }, { populate: ['automation'] });
      const ids: string[] = [];
      let token: Uint8Array | undefined;
      const query = retryJobQuery(job.account.id, job.automation.id, job.request.filter);
      do {
        const page = await temporal.workflowService.listWorkflowExecutions({
          namespace: temporal.options.namespace,
          query,
          pageSize: 500,
          nextPageToken: token,
        });
        for (const info of page.executions ?? []) if (info.execution?.workflowId) ids.push(info.execution.workflowId);
        token = page.nextPageToken?.length ? page.nextPageToken : undefined;
      } while (token && ids.length < MAX_PLANNED_RUNS);
      ids.reverse();
      const planned = ids.slice(0, MAX_PLANNED_RUNS);
      await em.nativeUpdate(RetryJob, { id: jobId }, { planned: planned.length });
      return planned;
    },
    /**
     * Queues retries of `logIds` for the job; a run its filter matched that cannot be retried (its failed node gone
     * from the live graph, errorContains not matching) is skipped. Answers how many were queued.
     */
    queueRetries: async (jobId: string, logIds: string[]): Promise<number> => {
      const em = orm.em.fork();
      const job = await em.findOneOrFail(RetryJob, { id: jobId });
      const automation = await em.findOneOrFail(Automation, { id: job.automation.id });
      const { request } = job;
      let queued = 0;
      for (const logId of logIds) {
        let run;
        try {
          run = await prepareRetry(em, temporal, automation, logId, request, nodeFactsOf, request.filter);
        } catch (error) {
          if (error instanceof AppError && error.status < 500) continue;
          throw error;
        }
        if (await queueRetry(em, { run, originalId: logId, from: request.from, graph: request.graph, jobId })) queued += 1;
      }
      if (queued) await em.getKnex().raw(`select pg_notify(?, '')`, [OUTBOX_CHANNEL]);
      return queued;
    },
    /**
     * Waits (at most `UNFINISHED_WAIT_MS`) until fewer than `below` of the job's retries are unfinished (waiting for
     * admission or running), and answers how many are; read-only, so safe to repeat.
     */
    awaitUnfinishedRetries: async (jobId: string, below: number): Promise<number> => {
      const knex = orm.em.getKnex();
      const until = Date.now() + UNFINISHED_WAIT_MS;
      for (;;) {
        const unfinished = await unfinishedRetries(knex, jobId);
        if (unfinished < below || Date.now() >= until) return unfinished;
        await new Promise((resolve) => setTimeout(resolve, UNFINISHED_POLL_MS));
      }
    },
    /** Records how the job ended. */
    endRetryJob: async (jobId: string, status: 'completed' | 'cancelled'): Promise<void> => {
      await orm.em.fork().nativeUpdate(RetryJob, { id: jobId }, { status, finishedAt: new Date() });
    },
  };
}
