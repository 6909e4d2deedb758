/**
 * A retry job (`POST /workflows/{id}/retries`): retries the failed runs its filter finds, in batches at a bounded
 * rate, each queued through the outbox as a background event: admission takes it after every fresh run and lets the
 * job's runs fill only a share of the bound (db/automations/admission.ts), so fresh runs keep their latency. The job
 * queues a batch only once fewer than a batch of its retries are unfinished, so it prepares retries at the pace
 * admission lets them run rather than ahead of it. Cancelling the job (`DELETE .../retries/{jobId}`) stops it between
 * batches; retries already queued still run. Its Temporal workflow id is `retry-job:<jobId>`.
 */
import { CancellationScope, isCancellation, patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { planRetries, queueRetries, endRetryJob, awaitUnfinishedRetries } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** How many times (each at most 30 s) the job waits for its retries before queueing its next batch anyway. */
const MAX_WAITS = 10;

export interface RetryRunsInput {
  jobId: string;
  /** Retries queued per batch, and the pause between batches: together the job's rate. */
  batchSize: number;
  pauseMs: number;
}

export async function retryRuns({ jobId, batchSize, pauseMs }: RetryRunsInput): Promise<{ planned: number; queued: number }> {
  let queued = 0;
  let planned = 0;
  try {
    const logIds = await planRetries(jobId);
    planned = logIds.length;
    for (let at = 0; at < logIds.length; at += batchSize) {
      if (at > 0) await sleep(pauseMs);
      // Jobs started before it queued every batch after the pause, however many of their retries still waited.
      // The wait is bounded: retries that cannot end (their events parked) do not hold the job forever.
      if (at > 0 && patched('retry-job-waits-for-its-retries')) {
        for (let waits = 0; waits < MAX_WAITS && (await awaitUnfinishedRetries(jobId, batchSize)) >= batchSize; waits += 1);
      }
      queued += await queueRetries(jobId, logIds.slice(at, at + batchSize));
    }
  } catch (error) {
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => endRetryJob(jobId, 'cancelled'));
    throw error;
  }
  await endRetryJob(jobId, 'completed');
  return { planned, queued };
}
