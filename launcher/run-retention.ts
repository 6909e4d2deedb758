/**
 * How long run history is kept (README, Run history): a run log is its Temporal execution, so the namespace's
 * retention is the window of `/workflows/{id}/logs`. Temporal deletes a closed run's history and visibility record
 * that long after it closed; a store therefore holds about (runs a day × days) past runs, not every run ever made.
 */
import type { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';

const DAY_SECONDS = 86_400;

/** Sets the retention of `namespace` to `days` when it differs; answers whether it changed. */
export async function ensureRunRetention(client: Client, namespace: string, days: number): Promise<boolean> {
  const { config } = await client.workflowService.describeNamespace({ namespace });
  const seconds = days * DAY_SECONDS;
  if (Number(String(config?.workflowExecutionRetentionTtl?.seconds ?? 0)) === seconds) return false;
  await client.workflowService.updateNamespace({
    namespace,
    // Only the retention changes; unset archival states mean "as they are".
    config: { workflowExecutionRetentionTtl: msToTs(seconds * 1000) },
  });
  return true;
}
