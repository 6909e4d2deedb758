import type { Orm } from '../db/orm.js';
import { beginRun, finishRun, type RunBegin, type RunEnd } from '../db/automations/run-ledger.js';

/** Run bookkeeping for `runAutomation`: the ledger row behind counters and analytics (idempotent, retry-safe). */
export function createRunLedgerActivities(orm: Orm) {
  return {
    beginRun: (run: RunBegin) => beginRun(orm.em.fork(), run),
    finishRun: (run: RunEnd) => finishRun(orm.em.fork(), run),
  };
}
