/**
 * Runs that wait for admission in the outbox like events (worker/outbox-dispatcher.ts):
 *  - a manual run: the API writes a MANUAL_RUN event carrying the run's whole input, prepared when the user asked
 *    (the draft may change after), and the Temporal workflow id it answered with, so the client can follow the run
 *    before it starts; the dispatcher starts it;
 *  - a scheduled run: Temporal Schedules start `runAutomation` themselves, so the run's first step writes a
 *    SCHEDULED_RUN event and waits for the ADMITTED_SIGNAL, which the dispatcher sends when it admits the event.
 */
import type { RunStartRequest } from './run-start.js';

export const MANUAL_RUN_EVENT = 'MANUAL_RUN';
export const SCHEDULED_RUN_EVENT = 'SCHEDULED_RUN';
export const ADMITTED_SIGNAL = 'admitted';

export interface ManualRunEventPayload {
  workflowId: string;
  request: RunStartRequest;
}

/** A run already started that asks to be admitted (the payload of a SCHEDULED_RUN event). */
export interface AdmissionRequest {
  /** The run's Temporal workflow id. */
  workflowId: string;
  accountId: number;
  automationId: number;
}
