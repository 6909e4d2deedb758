/**
 * How every automation run is started in Temporal (manual, event, schedule): its workflow id, its input and the
 * search attributes that the run logs and the Temporal UI filter on. Workflow ids:
 * `automation:<automationId>:manual-<uuid>`, `automation:<automationId>:event-<eventId>` (a redelivered event finds
 * its run already there) and `automation:<automationId>:schedule-<nodeId>` (Temporal appends the fire time).
 */
import type { SearchAttributePair } from '@temporalio/common';
import { ACCOUNT_ID, AUTOMATION_ID, EVENT_ID, TRIGGER_TYPE } from '../search-attributes.js';
import type { RunAutomationInput, RunTrigger } from './contract.js';

/** A run to start: the workflow's input, with what started it required. */
export type RunStartRequest = RunAutomationInput & { trigger: RunTrigger };

/** The Temporal workflow id of an automation run; `key` is `manual-<uuid>`, `event-<id>` or `schedule-<nodeId>`. */
export function automationRunId(automationId: number, key: string): string {
  return `automation:${automationId}:${key}`;
}

/** The Temporal workflow id prefix of every run of an automation, for telling its logs from others'. */
export function automationRunPrefix(automationId: number): string {
  return `automation:${automationId}:`;
}

export function runInput(request: RunStartRequest): RunAutomationInput {
  return { ...request, chain: request.chain ?? [], preventedLoop: request.preventedLoop ?? false };
}

export function runSearchAttributes(request: Pick<RunStartRequest, 'accountId' | 'automationId' | 'trigger'>): SearchAttributePair[] {
  return [
    { key: ACCOUNT_ID, value: request.accountId },
    { key: AUTOMATION_ID, value: request.automationId },
    { key: TRIGGER_TYPE, value: request.trigger.type },
    ...(request.trigger.eventId ? [{ key: EVENT_ID, value: request.trigger.eventId }] : []),
  ];
}
