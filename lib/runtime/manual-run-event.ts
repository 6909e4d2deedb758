/**
 * A manual run waits for admission in the outbox like any event (worker/outbox-dispatcher.ts): the API writes a
 * MANUAL_RUN event carrying the run's whole input, prepared when the user asked (the draft may change after), and
 * the Temporal workflow id it answered with, so the client can follow the run before it starts.
 */
import type { RunStartRequest } from './run-start.js';

export const MANUAL_RUN_EVENT = 'MANUAL_RUN';

export interface ManualRunEventPayload {
  workflowId: string;
  request: RunStartRequest;
}
