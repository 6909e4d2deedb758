import type { Orm } from '../db/orm.js';
import { beginRun, finishRunFreeing, type RunBegin, type RunEnd } from '../db/automations/run-ledger.js';
import type { OutboxNotifier } from '../db/outbox-notifier.js';
import { runsTotal } from '../lib/metrics.js';

/**
 * Run bookkeeping for `runAutomation`: the ledger row behind counters and analytics (idempotent, retry-safe), and
 * the runs metric, counted only by the call that recorded the change, so a retried activity counts nothing twice.
 * A run that ends frees its admission slot and wakes the outbox dispatchers (`outbox`), which admit the next run.
 */
export function createRunLedgerActivities(orm: Orm, outbox?: OutboxNotifier) {
  return {
    beginRun: async (run: RunBegin) => {
      const { insufficientCredits, recorded } = await beginRun(orm.em.fork(), run);
      if (recorded) runsTotal.inc({ trigger_type: run.triggerType, status: 'started' });
      return { insufficientCredits };
    },
    finishRun: async (run: RunEnd) => {
      const { triggerType, freed } = await finishRunFreeing(orm.em.fork(), run);
      if (freed) outbox?.poke();
      if (triggerType !== null) runsTotal.inc({ trigger_type: triggerType, status: run.status });
    },
  };
}
