import { ActivityFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { Graph } from '../lib/graph/graph.js';
import { interpret } from './interpreter.js';
import type { RunResult } from './interpreter/types.js';

const { executeNode } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  // Network errors and 5xx retry with backoff; node executors mark permanent failures non-retryable.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4 },
});

export interface RunAutomationInput {
  accountId: number;
  workflowId: number;
  /** The immutable snapshot this run executes (live, or the draft for a manual test run). */
  snapshotId: string;
  graph: Graph;
  entryNodeId: string;
  triggerPayload: unknown;
}

/** One run of an automation: the pure interpreter, with every executed node as an activity. */
export async function runAutomation(input: RunAutomationInput): Promise<RunResult> {
  return interpret(
    input.graph,
    input.entryNodeId,
    async (node, { interpolatedData }) => {
      try {
        return await executeNode({ accountId: input.accountId, workflowId: input.workflowId, node, data: interpolatedData, triggerPayload: input.triggerPayload });
      } catch (error) {
        // The node's own message (the activity's failure cause) is what a run log should show.
        if (!isCancellation(error) && error instanceof ActivityFailure && error.cause) throw new Error(error.cause.message);
        throw error;
      }
    },
    { triggerPayload: input.triggerPayload, propagate: isCancellation },
  );
}
