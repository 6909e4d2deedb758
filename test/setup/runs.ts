/** Reading automation runs straight from Temporal in tests. */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { AutomationRunResult } from '../../workflows/run-automation.workflow.js';
import { harness } from './harness.js';

/** The result of a run once it has ended: a failed run's result is the details of its failure. */
export async function runResult(temporalWorkflowId: string): Promise<AutomationRunResult> {
  try {
    return await harness().env.client.workflow.getHandle(temporalWorkflowId).result();
  } catch (error) {
    if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure && error.cause.details?.[0]) {
      return error.cause.details[0] as AutomationRunResult;
    }
    throw error;
  }
}

/** Reads until `ok` holds (or `timeoutMs` passes, which fails the test naming what it waited for and the last value). */
export async function waitUntil<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls `probe` until it answers something other than undefined. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  return (await waitUntil(probe, (value) => value !== undefined, what, timeoutMs)) as T;
}

/** The ledger rows of a workflow's runs, oldest first (what counters and analytics are built from). */
export async function ledgerRuns(
  workflowId: number,
): Promise<{ id: string; status: string; prevented_loop: boolean; trigger_type: string; event_id: string | null }[]> {
  const result = await harness()
    .orm.em.getKnex()
    .raw(`select id, status, prevented_loop, trigger_type, event_id from workflow_runs where workflow_id = ? order by started_at, id`, [workflowId]);
  return result.rows;
}

/** The result of a run that an event will start: waits for the execution to exist, then for its end. */
export function awaitRun(temporalWorkflowId: string, timeoutMs = 30_000): Promise<AutomationRunResult> {
  return eventually(() => runResult(temporalWorkflowId).catch(() => undefined), `run ${temporalWorkflowId}`, timeoutMs);
}
