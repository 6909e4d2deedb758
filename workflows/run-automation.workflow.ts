import {
  ActivityFailure, ApplicationFailure, CancellationScope, isCancellation, proxyActivities, proxyLocalActivities, upsertMemo, workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { Graph } from '../lib/graph/graph.js';
import { LOCAL_NODE_TYPES } from '../lib/graph/workflow-nodes.js';
import { interpret } from './interpreter.js';
import type { RunResult } from './interpreter/types.js';

const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4 };
const { executeNode } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // The node heartbeats while it works: a killed worker's node is retried elsewhere after this, not after 2 minutes.
  heartbeatTimeout: '10 seconds',
  // Network errors and 5xx retry with backoff; node executors mark permanent failures non-retryable.
  retry,
});
const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry });

/** What started a run: MANUAL, SCHEDULED_TRIGGER, or the type of the outbox event (INCOMING_WEBHOOK, TABLE_ROW_CREATED, …). */
export interface RunTrigger {
  type: string;
  /** The outbox event, for event-started runs. */
  eventId?: string;
}

export interface RunAutomationInput {
  accountId: number;
  workflowId: number;
  /** The immutable snapshot this run executes (live, or the draft for a manual test run). */
  snapshotId: string;
  graph: Graph;
  entryNodeId: string;
  triggerPayload: unknown;
  trigger?: RunTrigger;
  /** Automations whose runs led to this one through events, oldest first (this one is not in it). */
  chain?: number[];
  /** Set by the dispatcher when this run would start its automation again in a cycle: it stops before any node. */
  preventedLoop?: boolean;
}

/** What a run log lists besides Temporal's own status and times; set as the execution's memo when the run ends. */
export interface RunMemo {
  successful: boolean;
  operations: number;
  aiCredits: number;
  error: string | null;
  insufficientCredits: boolean;
  preventedLoop: boolean;
}

/** The result of a run, also the details of the failure of an unsuccessful one. */
export interface AutomationRunResult extends RunResult {
  aiCredits: number;
  insufficientCredits: boolean;
  preventedLoop: boolean;
}

/**
 * One run of an automation: the pure interpreter, with every executed node as an activity (a local one for nodes
 * without I/O). A run that does not succeed fails the Temporal execution (type RunFailed, PreventedLoop or
 * InsufficientCredits) with its result as the failure's details, so the Temporal UI shows it as failed.
 */
export async function runAutomation(input: RunAutomationInput): Promise<AutomationRunResult> {
  const info = workflowInfo();
  const runId = info.workflowId;
  const { insufficientCredits } = await local.beginRun({
    id: runId,
    accountId: input.accountId,
    workflowId: input.workflowId,
    triggerType: input.trigger?.type ?? 'MANUAL',
    eventId: input.trigger?.eventId ?? null,
    startedAt: info.startTime.toISOString(),
  });
  const chain = [...(input.chain ?? []), input.workflowId];
  let run: RunResult;
  let executed = 0;
  if (input.preventedLoop || insufficientCredits) {
    const message = input.preventedLoop
      ? `Loop prevented: workflow ${input.workflowId} was triggered again by an event its own run caused (automations ${chain.join(' → ')})`
      : `Insufficient credits: the account has no credits left, so workflow ${input.workflowId} did not run`;
    run = { successful: false, error: { nodeId: input.entryNodeId, message }, steps: 0, nodeResults: [], variables: {} };
  } else {
    try {
      run = await interpret(input.graph, input.entryNodeId, (node, { interpolatedData }) => runNode(input, chain, node, interpolatedData), {
        triggerPayload: input.triggerPayload,
        propagate: isCancellation,
        now: () => Date.now(),
        onRecord: () => (executed += 1),
      });
    } catch (error) {
      if (isCancellation(error)) {
        await CancellationScope.nonCancellable(() => end(runId, { successful: false, operations: executed, aiCredits: 0, error: 'Cancelled', insufficientCredits: false, preventedLoop: false }, 'cancelled'));
      }
      throw error;
    }
  }
  const result: AutomationRunResult = {
    ...run,
    aiCredits: run.nodeResults.reduce((sum, r) => sum + (r.aiCredits ?? 0), 0),
    insufficientCredits: !input.preventedLoop && insufficientCredits,
    preventedLoop: !!input.preventedLoop,
  };
  const memo: RunMemo = {
    successful: result.successful,
    operations: result.steps,
    aiCredits: result.aiCredits,
    error: result.error?.message ?? null,
    insufficientCredits: result.insufficientCredits,
    preventedLoop: result.preventedLoop,
  };
  await end(runId, memo, result.successful ? 'successful' : 'failed');
  if (result.successful) return result;
  const type = result.preventedLoop ? 'PreventedLoop' : result.insufficientCredits ? 'InsufficientCredits' : 'RunFailed';
  throw ApplicationFailure.create({ message: memo.error ?? 'The run failed', type, nonRetryable: true, details: [result] });
}

async function runNode(input: RunAutomationInput, chain: number[], node: Graph['nodes'][number], data: Graph['nodes'][number]['data']) {
  const args = { accountId: input.accountId, workflowId: input.workflowId, node, data, triggerPayload: input.triggerPayload, chain };
  try {
    return await (LOCAL_NODE_TYPES.has(node.type) ? local.executeNode(args) : executeNode(args));
  } catch (error) {
    // The node's own message (the activity's failure cause) is what a run log should show.
    if (!isCancellation(error) && error instanceof ActivityFailure && error.cause) throw new Error(error.cause.message);
    throw error;
  }
}

async function end(runId: string, memo: RunMemo, status: 'successful' | 'failed' | 'cancelled'): Promise<void> {
  upsertMemo({ ...memo });
  await local.finishRun({
    id: runId,
    status,
    operations: memo.operations,
    aiCredits: memo.aiCredits,
    error: memo.error,
    preventedLoop: memo.preventedLoop,
    insufficientCredits: memo.insufficientCredits,
    completedAt: new Date(Date.now()).toISOString(),
  });
}
