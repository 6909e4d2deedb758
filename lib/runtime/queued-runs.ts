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

/**
 * Payloads stored before `runWorkflowId` was named so (outbox events written by an older API or worker) carry the
 * run's Temporal workflow id as `workflowId`; readers of stored payloads fall back to it.
 */
export interface LegacyRunWorkflowId {
  /** @deprecated the old name of `runWorkflowId`; read only. */
  workflowId?: string;
}

/** The run's Temporal workflow id of a stored MANUAL_RUN or SCHEDULED_RUN payload, of the current shape or the old one. */
export function runWorkflowIdOf(payload: { runWorkflowId?: string } & LegacyRunWorkflowId): string {
  const id = payload.runWorkflowId ?? payload.workflowId;
  if (typeof id !== 'string') throw new Error('The queued run names no Temporal workflow id');
  return id;
}

/**
 * A payload to store, with the old name beside the new one: during a rolling deploy a worker of the previous version
 * may read what a new API or worker queues. Drop it once no such worker can run.
 */
export function storedRunPayload<T extends { runWorkflowId: string }>(payload: T): T & LegacyRunWorkflowId {
  return { ...payload, workflowId: payload.runWorkflowId };
}

export interface ManualRunEventPayload {
  /** The run's Temporal workflow id. */
  runWorkflowId: string;
  request: RunStartRequest;
}

/** A run already started that asks to be admitted (the payload of a SCHEDULED_RUN event). */
export interface AdmissionRequest {
  /** The run's Temporal workflow id. */
  runWorkflowId: string;
  accountId: number;
  automationId: number;
}
