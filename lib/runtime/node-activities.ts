/**
 * How one node execution runs as Temporal activities: the one description that the workflow follows
 * (`workflows/node-runner.ts`) and the run-log reader reads back from a run's history (`integrations/temporal/run-history.ts`).
 * Names and pure rules only, so both sides import it.
 *
 * - A node runs as `executeNode`; its outcome is the node's.
 * - An AI node in steps (`NodeFacts.aiSteps`) runs `prepareAiNode`, then for each AI call it asks for, an `aiCall`
 *   activity and `finishAiNode` with every reply so far and the state its last step passed on.
 * - Histories recorded before steps (and runs started then) run `executeNode`, then for each AI call, `aiCall` and
 *   `executeNode` again with every reply so far.
 * - A node activity whose outcome asks for an AI call (`NodeOutcome.aiCall`) has not finished its node: the node
 *   stays in flight through the `aiCall` activity, whose failure is the node's, until a node activity answers
 *   without one. Any node activity may answer the node's outcome (a `prepareAiNode` that needs no call does).
 */
import type { AiCallRequest, AiReply } from './ai-call.js';
import type { ExecuteNodeInput, NodeOutcome } from './contract.js';

/** The activities that run a node, or one step of an AI node. */
export const NODE_ACTIVITIES = ['executeNode', 'prepareAiNode', 'finishAiNode'] as const;
export type NodeActivity = (typeof NODE_ACTIVITIES)[number];

/** The activity that makes one AI call a node activity asked for. */
export const AI_CALL_ACTIVITY = 'aiCall';

export const isNodeActivity = (name: string | null | undefined): name is NodeActivity => NODE_ACTIVITIES.includes(name as NodeActivity);

/** The first activity of a node execution: its AI steps' `prepareAiNode`, or the whole node. */
export const firstNodeActivity = (inSteps: boolean): NodeActivity => (inSteps ? 'prepareAiNode' : 'executeNode');

/**
 * The node activity after an AI call, and its input: `finishAiNode` with the replies so far and the state `last`
 * passed on, or (before steps) `executeNode` again with the replies so far — and no state, as those runs recorded it.
 */
export function afterAiCall(
  inSteps: boolean,
  input: ExecuteNodeInput,
  replies: AiReply[],
  last: NodeOutcome,
): { activity: NodeActivity; input: ExecuteNodeInput } {
  return inSteps
    ? { activity: 'finishAiNode', input: { ...input, aiReplies: [...replies], aiState: last.aiState ?? null } }
    : { activity: 'executeNode', input: { ...input, aiReplies: [...replies] } };
}

/** The AI call a node activity's outcome asks for: with one, its node is still in flight. */
export const aiCallAskedBy = (outcome: NodeOutcome | null | undefined): AiCallRequest | undefined => outcome?.aiCall;

/**
 * Whether an activity of a node execution that ended (`activity`, its type) leaves its node in flight: a completed
 * `aiCall` does (a node activity reads its reply next), and so does a node activity that asks for an AI call. A
 * failure of either ends the node, failed; any other outcome ends it with its output.
 */
export function leavesNodeInFlight(activity: string | null | undefined, ended: { failed: boolean; outcome?: NodeOutcome }): boolean {
  return !ended.failed && (activity === AI_CALL_ACTIVITY || !!aiCallAskedBy(ended.outcome));
}
