/**
 * Activity options of bookkeeping steps: local activities that only write to agentry's database (a run's ledger
 * steps, a conversation's turn start, idle and end). They retry (1 s doubling, then every 30 s) until the database
 * answers, however long it is down, instead of failing an accepted run or turn; each attempt also waits an outage
 * out within its 30 s (worker/database-outage.ts). Such a step must be safe to run twice. A conversation's steps fail
 * other failures after as many attempts as before (`failsAfter`, activities/fails-after.ts).
 */
import type { LocalActivityOptions } from '@temporalio/workflow';

export const untilTheDatabaseAnswers: LocalActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
};
