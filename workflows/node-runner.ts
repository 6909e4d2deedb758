/**
 * Runs one node execution to its outcome, for every workflow that executes nodes (automation runs, conversation
 * turns), as `lib/runtime/node-activities.ts` describes it: the node activity (a local one when its type says so),
 * and for each AI call it asks for instead of an output (`NodeOutcome.aiCall`), an `aiCall` activity — its own
 * timeouts and retries, its request and reply in the history — then the node activity that reads the reply. An AI
 * node in steps (`NodeFacts.aiSteps`) runs `prepareAiNode`, the calls and `finishAiNode`: its code runs once. Histories
 * recorded before steps execute the node again with the reply appended to `ExecuteNodeInput.aiReplies`, until it
 * answers its output, and replay so.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { AiCallRequest, AiReply } from '../lib/runtime/ai-call.js';
import { nodeSummary, type ExecuteNodeInput, type NodeFacts, type NodeOutcome } from '../lib/runtime/contract.js';
import { AI_CALL_ACTIVITY, afterAiCall, aiCallAskedBy, firstNodeActivity, type NodeActivity } from '../lib/runtime/node-activities.js';

const retry = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 4 };
const remoteNodeOptions = {
  startToCloseTimeout: '2 minutes',
  // The node heartbeats while it works: a killed worker's node is retried elsewhere after this, not after 2 minutes.
  heartbeatTimeout: '10 seconds',
  // Network errors and 5xx retry with backoff; node executors mark permanent failures non-retryable.
  retry,
} as const;
const local = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry });
/** A node as a local activity: as long as a remote one may take (an API node's request may take 30 s). */
const localNodeOptions = { startToCloseTimeout: '2 minutes', retry } as const;

/**
 * Local activities' results reach Temporal together, with the workflow task that ran them, and a workflow task's
 * answer may be at most 4 MB. A run counts the output bytes of its local nodes since its last remote activity; past
 * this many, its next node runs as a remote activity, which closes the workflow task (and the count starts again).
 */
export const LOCAL_BATCH_BYTES = 512 * 1024;

/** The output bytes of local node executions not yet sent to Temporal (one per run or turn). */
export class LocalBatch {
  bytes = 0;
  /** The node activity taken last runs locally: its output counts (`count`). */
  private local = false;

  /** Whether the next node activity, of a type that may run locally, does (while the batch has room); a remote one empties it. */
  take(mayBeLocal: boolean): boolean {
    this.local = mayBeLocal && this.bytes < LOCAL_BATCH_BYTES;
    if (!this.local) this.bytes = 0;
    return this.local;
  }

  /** Counts the output of the node activity taken last, when it ran locally; answers it. */
  count(outcome: NodeOutcome): NodeOutcome {
    if (this.local) this.bytes += JSON.stringify(outcome).length;
    return outcome;
  }
}

/**
 * An AI call: one provider request of at most 60 s (plus a transcription's download), heartbeating. 429, 5xx,
 * timeouts and network errors are retried with backoff (1 s doubling, at most 1 minute, 5 attempts), after the
 * provider's `Retry-After` when it gives one; other 4xx fail at once (non-retryable failures of the activity).
 */
const { [AI_CALL_ACTIVITY]: aiCall } = proxyActivities<Activities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/**
 * The patch of AI nodes in steps: a run that reaches an AI node with this patch runs its steps (`prepareAiNode`,
 * `aiCall`, `finishAiNode`); histories recorded before it execute the node again after each call (`executeNode`,
 * `aiCall`, `executeNode`), and replay so.
 */
export const AI_STEPS_PATCH = 'ai-nodes-prepare-finish';

/** AI calls one node execution may make (TOOLS_AI: 5 tool rounds and a capture with its one repair need 7). */
export const MAX_AI_CALLS_PER_NODE = 20;

/**
 * The failure of a node execution: the node's own message, its failure type (`InsufficientCredits`, …), and the
 * credits of the AI calls it made before failing (charged all the same).
 */
export class NodeExecutionFailure extends Error {
  constructor(
    message: string,
    readonly type?: string,
    readonly aiCredits = 0,
  ) {
    super(message);
    this.name = 'NodeExecutionFailure';
  }
}

/**
 * Runs the node execution `input` to its outcome: its first node activity (local when `facts.local`, unless `batch`
 * is full), then for each AI call the node asks for, an `aiCall` activity and the node activity after it with the
 * reply, until the node answers its output. An AI node in steps (`facts.aiSteps`, behind the `AI_STEPS_PATCH` patch)
 * runs `prepareAiNode` → `aiCall` → `finishAiNode`; any other node (and every AI node of histories recorded before
 * steps) `executeNode`, again after each call.
 *
 * `input.executionKey` must name this node execution uniquely and stay the same on replay (the node's side effects
 * and each AI call's credits are keyed by it). Throws `NodeExecutionFailure` when the node or one of its AI calls
 * fails (type `InsufficientCredits` when the account cannot pay for an AI call); a cancellation is rethrown as is.
 */
export function runNodeExecution(input: ExecuteNodeInput, facts?: NodeFacts, batch = new LocalBatch()): Promise<NodeOutcome> {
  const replies: AiReply[] = [...(input.aiReplies ?? [])];
  const failed = (error: unknown): never => {
    throw nodeFailure(error, replies);
  };
  // Only for AI nodes in steps, so a run without them records no patch marker. Whether a node type is in steps is a
  // fact of the run's input (or of its turn's `beginTurn` result), so a history keeps the path it was recorded with.
  const inSteps = !!facts?.aiSteps && patched(AI_STEPS_PATCH);
  const next = (last: NodeOutcome) => {
    const after = afterAiCall(inSteps, input, replies, last);
    return nodeActivity(after.activity, after.input, facts, batch);
  };
  // A node without AI calls in one promise (in a workflow every promise costs a stack trace, which a chain of nodes
  // pays per node); a node that asks for AI calls goes on in `withAiCalls`.
  return nodeActivity(firstNodeActivity(inSteps), input, facts, batch).then(
    (outcome) => (aiCallAskedBy(batch.count(outcome)) ? withAiCalls(outcome, replies, batch, next).catch(failed) : outcome),
    failed,
  );
}

/**
 * The AI calls a node asks for: for each, an `aiCall` activity (its reply into `replies`, which a failure's credits
 * are counted from) and `next` with it, until the node answers its output.
 */
async function withAiCalls(
  first: NodeOutcome,
  replies: AiReply[],
  batch: LocalBatch,
  next: (last: NodeOutcome) => Promise<NodeOutcome>,
): Promise<NodeOutcome> {
  let outcome = first;
  for (let request = aiCallAskedBy(outcome); request; request = aiCallAskedBy(outcome)) {
    tooManyCalls(replies);
    replies.push(await callAi(request));
    batch.bytes = 0;
    outcome = batch.count(await next(outcome));
  }
  return outcome;
}

/**
 * A node execution's failure as the run log should show it: the node's own message (the activity's failure cause;
 * a local activity's failure itself), with the credits of the AI calls it made; a cancellation as it is.
 */
function nodeFailure(error: unknown, replies: AiReply[]): unknown {
  if (isCancellation(error)) return error;
  if (error instanceof ActivityFailure && error.cause) {
    const type = error.cause instanceof ApplicationFailure ? (error.cause.type ?? undefined) : undefined;
    return new NodeExecutionFailure(error.cause.message, type, creditsOf(replies));
  }
  if (error instanceof ApplicationFailure) return new NodeExecutionFailure(error.message, error.type ?? undefined, creditsOf(replies));
  return error;
}

/** One node activity: local when `facts.local`, unless `batch` is full (the caller counts its output: `batch.count`). */
function nodeActivity(name: NodeActivity, args: ExecuteNodeInput, facts: NodeFacts | undefined, batch: LocalBatch): Promise<NodeOutcome> {
  const summary = nodeSummary(args.node);
  return batch.take(!!facts?.local)
    ? proxyLocalActivities<Activities>({ ...localNodeOptions, summary })[name](args)
    : proxyActivities<Activities>({ ...remoteNodeOptions, summary })[name](args);
}

function tooManyCalls(replies: AiReply[]): void {
  if (replies.length >= MAX_AI_CALLS_PER_NODE)
    throw new NodeExecutionFailure(
      `The node made ${MAX_AI_CALLS_PER_NODE} AI calls without finishing, the most one node execution may make`,
      'TooManyAiCalls',
      creditsOf(replies),
    );
}

const creditsOf = (replies: AiReply[]) => replies.reduce((sum, reply) => sum + reply.record.credits, 0);

/** One AI call; when it finally fails (or is cancelled), what it was charged goes back to the account. */
async function callAi(request: AiCallRequest): Promise<AiReply> {
  try {
    return await aiCall(request);
  } catch (error) {
    await CancellationScope.nonCancellable(() => local.refundAiCall(request));
    throw error;
  }
}
