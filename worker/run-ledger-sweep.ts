/**
 * Keeps the run ledger in step with runs that ended without running their own bookkeeping: executions terminated or
 * timed out from outside (the Temporal UI or CLI), or gone. Every worker process sweeps now and then; the ledger's
 * updates are idempotent, so sweeps of several workers never count a run twice.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Orm } from '../db/orm.js';
import { finishRun, staleRuns, type RunEnd } from '../db/automations/run-ledger.js';
import { staleAdmissions } from '../db/automations/admission.js';
import { runsTotal } from '../lib/metrics.js';

const ENDED: Record<string, { status: RunEnd['status']; error: string | null }> = {
  COMPLETED: { status: 'successful', error: null },
  FAILED: { status: 'failed', error: 'Failed' },
  CANCELLED: { status: 'cancelled', error: 'Cancelled' },
  TERMINATED: { status: 'failed', error: 'Terminated' },
  TIMED_OUT: { status: 'failed', error: 'Timed out' },
  CONTINUED_AS_NEW: { status: 'failed', error: 'Continued as new' },
};

/**
 * Closes the ledger rows of runs that started over `graceMs` ago and whose executions have ended, and frees the
 * admission slots of runs admitted that long ago whose executions have ended (or never began: terminated before
 * their first workflow task); answers how many.
 */
export async function sweepRunLedger(orm: Orm, temporal: Client, graceMs = 60_000, limit = 200): Promise<number> {
  let closed = 0;
  const before = new Date(Date.now() - graceMs);
  const stale = new Set([...(await staleRuns(orm.em.fork(), before, limit)), ...(await staleAdmissions(orm.em.getKnex(), before, limit))]);
  for (const id of stale) {
    let ended: { status: RunEnd['status']; error: string | null } | undefined;
    let completedAt = new Date();
    try {
      const description = await temporal.workflow.getHandle(id).describe();
      ended = ENDED[description.status.name];
      completedAt = description.closeTime ?? completedAt;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      ended = { status: 'failed', error: 'The execution no longer exists in Temporal' };
    }
    if (!ended) continue;
    const triggerType = await finishRun(orm.em.fork(), { id, ...ended, operations: 0, aiCredits: 0, completedAt: completedAt.toISOString() });
    if (triggerType !== null) runsTotal.inc({ trigger_type: triggerType, status: ended.status });
    closed += 1;
  }
  return closed;
}
