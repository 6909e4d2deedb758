/**
 * How every automation run is started in Temporal (manual, event, schedule): its workflow id, its input and the
 * search attributes that the run logs and the Temporal UI filter on. Workflow ids:
 * `automation:<automationId>:manual-<uuid>`, `automation:<automationId>:event-<eventId>` (a redelivered event finds
 * its run already there) and `automation:<automationId>:schedule-<nodeId>` (Temporal appends the fire time).
 */
import type { SearchAttributePair } from '@temporalio/common';
import { AppError } from '../errors.js';
import { ACCOUNT_ID, AUTOMATION_ID, EVENT_ID, TRIGGER_TYPE } from '../search-attributes.js';
import type { RunAutomationInput, RunTrigger } from './contract.js';

/** A run to start: the workflow's input, with what started it required. */
export type RunStartRequest = RunAutomationInput & { trigger: RunTrigger };

/** The Temporal workflow id of an automation run; `key` is `manual-<uuid>`, `event-<id>` or `schedule-<nodeId>`. */
export function automationRunWorkflowId(automationId: number, key: string): string {
  return `automation:${automationId}:${key}`;
}

/** The Temporal workflow id prefix of every run of an automation, for telling its logs from others'. */
export function automationRunWorkflowIdPrefix(automationId: number): string {
  return `automation:${automationId}:`;
}

/** Largest run input (graph and trigger payload, as JSON) handed to Temporal, which refuses payloads over 2 MB. */
export const MAX_RUN_INPUT_BYTES = 1_900_000;

/** The input of a run; one too large for Temporal to carry is refused (413) before anything is started. */
export function runInput(request: RunStartRequest): RunAutomationInput {
  const input = { ...request, chain: request.chain ?? [], preventedLoop: request.preventedLoop ?? false, ledgerOnNodes: true };
  const bytes = Buffer.byteLength(JSON.stringify(input));
  if (bytes > MAX_RUN_INPUT_BYTES) {
    const size = (bytes / 1e6).toFixed(1);
    throw new AppError(
      413,
      'payload_too_large',
      `The run's input (its graph and trigger payload) is ${size} MB; Temporal carries at most ${MAX_RUN_INPUT_BYTES / 1e6} MB: send a smaller payload`,
    );
  }
  return input;
}

export function runSearchAttributes(request: Pick<RunStartRequest, 'accountId' | 'automationId' | 'trigger'>): SearchAttributePair[] {
  return [
    { key: ACCOUNT_ID, value: request.accountId },
    { key: AUTOMATION_ID, value: request.automationId },
    { key: TRIGGER_TYPE, value: request.trigger.type },
    ...(request.trigger.eventId ? [{ key: EVENT_ID, value: request.trigger.eventId }] : []),
  ];
}

/**
 * What the Temporal UI shows as a run's summary (its user metadata), for the runs that have something to say: a
 * retry is a new run rather than a reset of the failed one, so its summary names the run it retries and where it
 * starts (`POST /workflows/{id}/logs/{logId}/retry`, retry jobs).
 */
export function runSummary(request: Pick<RunStartRequest, 'retryOf' | 'resume'>): string | undefined {
  if (!request.retryOf) return undefined;
  const where = request.resume ? `from its failed node ${request.resume.fromNodeId}` : 'from the start';
  return `Retry of ${request.retryOf.runWorkflowId} (run ${request.retryOf.runId}) ${where}`;
}

/** The address of a run in the Temporal UI at `uiUrl`. */
export function runUiUrl(uiUrl: string, namespace: string, runWorkflowId: string, runId: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(runWorkflowId)}/${runId}/history`;
}
