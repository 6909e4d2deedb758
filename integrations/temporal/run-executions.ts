/**
 * One automation run's execution in Temporal, as the run logs and their operations (retry, cancel, terminate) find
 * it: owned by the account's automation or 404, its result or failure details, the input it started with.
 */
import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { NotFoundError } from '../../lib/errors.js';
import type { AutomationRunResult, RunAutomationInput } from '../../lib/runtime/contract.js';
import { automationRunWorkflowIdPrefix } from '../../lib/runtime/run-start.js';
import { decode, searchAttributes, type RawExecutionInfo } from './run-history.js';

/** Whose logs: the account of the key and one of its automations (already checked to exist). */
export interface LogScope {
  accountId: number;
  automationId: number;
}

/** The execution of a log, or 404 when it does not exist or is not a run of this account's automation. */
export async function ownedExecution(temporal: Client, scope: LogScope, logId: string): Promise<RawExecutionInfo> {
  const notFound = new NotFoundError(`Log ${logId} not found for workflow ${scope.automationId}`);
  if (!logId.startsWith(automationRunWorkflowIdPrefix(scope.automationId))) throw notFound;
  let info: RawExecutionInfo | null | undefined;
  try {
    info = (await temporal.workflow.getHandle(logId).describe()).raw.workflowExecutionInfo;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw notFound;
    throw error;
  }
  const attributes = info ? searchAttributes(info) : {};
  if (!info || attributes.AgentryAccountId !== scope.accountId || attributes.AgentryAutomationId !== scope.automationId) throw notFound;
  return info;
}

/** The result of an ended run: what it returned, or the details of its failure (none for a terminated run). */
export async function runResult(handle: ReturnType<Client['workflow']['getHandle']>): Promise<AutomationRunResult | undefined> {
  try {
    return (await handle.result()) as AutomationRunResult;
  } catch (error) {
    if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure)
      return error.cause.details?.[0] as AutomationRunResult | undefined;
    if (error instanceof WorkflowFailedError) return undefined;
    throw error;
  }
}

/** The input a run started with (the first event of its history). */
export async function startInput(temporal: Client, runWorkflowId: string, runId: string): Promise<RunAutomationInput> {
  const page = await temporal.workflowService.getWorkflowExecutionHistory({
    namespace: temporal.options.namespace,
    execution: { workflowId: runWorkflowId, runId },
    maximumPageSize: 1,
  });
  const input = decode<RunAutomationInput>(page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
  if (!input) throw new Error(`The history of run ${runWorkflowId} does not start with its input`);
  return input;
}
