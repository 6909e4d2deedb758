/**
 * Node executors by type: adding a node type adds one file and one line here. Node types whose providers (AI
 * gateway, messaging, files) arrive later fail the node with a clear "not available" error until then.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { WorkflowNodeType } from '../../lib/graph/workflow-nodes.js';
import type { NodeOutcome } from '../../workflows/interpreter/types.js';
import { executeApi } from './api.node.js';
import { executeAutomationStatus } from './automation-status.node.js';
import { executeCreateRecordActivity } from './create-record-activity.node.js';
import { executeDynamicTables } from './dynamic-tables.node.js';
import { executeEntry } from './entry.node.js';
import { executeSendMessage } from './send-message.node.js';
import type { ExecuteNodeArgs, ExecutorDeps, NodeExecutor } from './types.js';

export const NODE_EXECUTORS: Partial<Record<WorkflowNodeType, NodeExecutor>> = {
  TRIGGER: executeEntry,
  WEBHOOK: executeEntry,
  SCHEDULED_TRIGGER: executeEntry,
  API: executeApi,
  DYNAMIC_TABLES: executeDynamicTables,
  AUTOMATION_STATUS: executeAutomationStatus,
  CREATE_RECORD_ACTIVITY: executeCreateRecordActivity,
  SEND_MESSAGE: executeSendMessage,
};

export type { ExecuteNodeArgs } from './types.js';

/**
 * Largest node output, as JSON bytes. Temporal refuses payloads over 2 MB; a larger output fails the node with a
 * message saying what to change instead of an opaque Temporal error after every retry.
 */
export const MAX_OUTPUT_BYTES = 1_500_000;

function checkOutputSize(args: ExecuteNodeArgs, outcome: NodeOutcome): NodeOutcome {
  const bytes = outcome.output === undefined ? 0 : Buffer.byteLength(JSON.stringify(outcome.output));
  if (bytes <= MAX_OUTPUT_BYTES) return outcome;
  const node = args.node.alias ? `${args.node.nodeId} (${args.node.alias})` : args.node.nodeId;
  throw ApplicationFailure.nonRetryable(
    `The output of ${args.node.type} node ${node} is ${(bytes / 1e6).toFixed(1)} MB; a node output may be at most ${MAX_OUTPUT_BYTES / 1e6} MB: narrow it (a filter, fewer fields)`,
    'OutputTooLarge',
  );
}

/** The `executeNode` activity: one executed node, dispatched to its executor. */
export function createExecuteNode(deps: ExecutorDeps) {
  return async function executeNode(args: ExecuteNodeArgs): Promise<NodeOutcome> {
    const executor = NODE_EXECUTORS[args.node.type as WorkflowNodeType];
    if (!executor) throw ApplicationFailure.nonRetryable(`${args.node.type} nodes are not available yet in this version of agentry`, 'NotAvailable');
    // Heartbeats let Temporal notice a dead worker within the heartbeat timeout instead of the node's whole timeout.
    const context = Context.current();
    if (context.info.isLocal) return executor(args, deps);
    const beat = setInterval(() => context.heartbeat(), 2_000);
    try {
      const outcome = await executor(args, deps);
      deps.outbox?.poke();
      return checkOutputSize(args, outcome);
    } finally {
      clearInterval(beat);
    }
  };
}
