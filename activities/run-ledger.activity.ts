import type { Orm } from '../db/orm.js';
import { beginRun, finishRun, type RunBegin, type RunEnd, type RunUiLink } from '../db/automations/run-ledger.js';
import type { OutboxNotifier } from '../db/automations/outbox-notifier.js';
import { SCHEDULED_RUN_EVENT, storedRunPayload, type AdmissionRequest } from '../lib/runtime/queued-runs.js';
import { runsTotal } from '../lib/metrics.js';

/**
 * Run bookkeeping for `runAutomation`: the ledger row behind counters and analytics (idempotent, retry-safe), and
 * the runs metric, counted only by the call that recorded the change, so a retried activity counts nothing twice.
 * A run that ends frees its admission slot and, when events wait, wakes the outbox dispatchers (a NOTIFY of the
 * same statement), which admit the next run; a failed run's end also writes its AUTOMATION_FAILED event for the
 * workflows listening (with its address in the Temporal UI, `uiLink`); `outbox` is poked when a scheduled run asks for admission.
 */
export function createRunLedgerActivities(orm: Orm, outbox?: OutboxNotifier, uiLink?: RunUiLink) {
  return {
    beginRun: async (run: RunBegin) => {
      const { insufficientCredits, recorded } = await beginRun(orm.em.fork(), run);
      if (recorded) runsTotal.inc({ trigger_type: run.triggerType, status: 'started' });
      return { insufficientCredits };
    },
    /**
     * Queues a started run for admission (workflows/await-admission.ts). A retried call may queue it twice; the
     * second admission finds the run's slot already taken (keyed by its workflow id) and only signals it again.
     */
    requestAdmission: async (request: AdmissionRequest) => {
      await orm.em
        .getKnex()
        .raw(`insert into outbox_events (account_id, type, payload, created_at, attempts) values (?, ?, ?::json, now(), 0)`, [
          request.accountId,
          SCHEDULED_RUN_EVENT,
          JSON.stringify(storedRunPayload(request)),
        ]);
      outbox?.poke();
    },
    finishRun: async (run: RunEnd) => {
      // A freed slot wakes the dispatchers when events wait for it (the statement's own NOTIFY).
      const triggerType = await finishRun(orm.em.fork(), run, uiLink);
      if (triggerType !== null) runsTotal.inc({ trigger_type: triggerType, status: run.status });
    },
  };
}
