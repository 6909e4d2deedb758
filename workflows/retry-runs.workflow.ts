/**
 * A retry job (`POST /workflows/{id}/retries`): retries the failed runs its filter finds, in batches at a bounded
 * rate, each queued through the outbox so admission bounds the retried runs like every run (fresh runs keep their
 * turn: the dispatcher takes events round-robin by account). Cancelling the job (`DELETE .../retries/{jobId}`)
 * stops it between batches; retries already queued still run. Its Temporal workflow id is `retry-job:<jobId>`.
 */
import { CancellationScope, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { planRetries, queueRetries, endRetryJob } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

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
      queued += await queueRetries(jobId, logIds.slice(at, at + batchSize));
    }
  } catch (error) {
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => endRetryJob(jobId, 'cancelled'));
    throw error;
  }
  await endRetryJob(jobId, 'completed');
  return { planned, queued };
}
