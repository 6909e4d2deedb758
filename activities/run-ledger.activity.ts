import type { Orm } from '../db/orm.js';
import { beginRun, finishRun, type RunBegin, type RunEnd } from '../db/automations/run-ledger.js';
import { runsTotal } from '../lib/metrics.js';

/**
 * Run bookkeeping for `runAutomation`: the ledger row behind counters and analytics (idempotent, retry-safe), and
 * the runs metric, counted only by the call that recorded the change, so a retried activity counts nothing twice.
 */
export function createRunLedgerActivities(orm: Orm) {
  return {
    beginRun: async (run: RunBegin) => {
      const { insufficientCredits, recorded } = await beginRun(orm.em.fork(), run);
      if (recorded) runsTotal.inc({ trigger_type: run.triggerType, status: 'started' });
      return { insufficientCredits };
    },
    finishRun: async (run: RunEnd) => {
      const triggerType = await finishRun(orm.em.fork(), run);
      if (triggerType !== null) runsTotal.inc({ trigger_type: triggerType, status: run.status });
    },
  };
}
