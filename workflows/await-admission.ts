import { condition, defineSignal, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { ADMITTED_SIGNAL, type AdmissionRequest } from '../lib/runtime/queued-runs.js';

const admitted = defineSignal(ADMITTED_SIGNAL);
const { requestAdmission } = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { maximumInterval: '30 seconds' } });

/**
 * For a run Temporal started by itself (a schedule's): asks the outbox dispatcher for a slot (a SCHEDULED_RUN event)
 * and waits until it is admitted, so scheduled runs obey the same bound as the others (README, Admission control).
 */
export async function awaitAdmission(request: AdmissionRequest): Promise<void> {
  let granted = false;
  setHandler(admitted, () => void (granted = true));
  await requestAdmission(request);
  await condition(() => granted);
}
