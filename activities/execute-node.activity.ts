/**
 * The activities that run nodes: `executeNode` runs one node through its module's executor; `prepareAiNode` and
 * `finishAiNode` run the steps of an AI node (`NodeModule.ai`: prepare → AI call → finish). This is the one place
 * where a node's failure becomes a Temporal failure (permanent ones non-retryable), where its heartbeats and
 * cancellation are wired, and where its output is checked against Temporal's payload limit. An AI node's step that
 * needs an AI call answers the call instead of an output (`NodeOutcome.aiCall`): the workflow makes it, then runs the
 * node's `finish` step with the reply. Runs started before steps existed execute the node again instead, for which
 * `executeNode` runs an AI node's steps from its replies (`stepsExecutor`).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { heartbeating } from './heartbeating.js';
import { once, onceWrites } from '../db/node-effects/node-effects.js';
import { countFlowRun } from '../db/agents/flow-runs.js';
import { AppError, NodeError } from '../lib/errors.js';
import { OutboundError } from '../integrations/outbound/outbound-fetch.js';
import { nodeDuration } from '../lib/metrics.js';
import type { ExecuteNodeInput, NodeOutcome, RunBegin, RunEnd } from '../lib/runtime/contract.js';
import type { ExecutionContext, ExecutorDeps, NodeModule } from '../nodes/node-module.js';
import { nodeModule } from '../nodes/registry.js';
import { finishStep, prepareStep, stepsExecutor } from '../nodes/support/ai-steps.js';

/**
 * Largest node output, as JSON bytes. Temporal refuses payloads over 2 MB; a larger output fails the node with a
 * message saying what to change instead of an opaque Temporal error after every retry.
 */
export const MAX_OUTPUT_BYTES = 1_500_000;

const describe = (node: ExecuteNodeInput['node']) => (node.alias ? `${node.nodeId} (${node.alias})` : node.nodeId);

function checkOutputSize(input: ExecuteNodeInput, outcome: NodeOutcome): NodeOutcome {
  const answer = outcome.aiCall ? [outcome.aiCall, outcome.aiState] : outcome.output;
  const bytes = answer === undefined ? 0 : Buffer.byteLength(JSON.stringify(answer));
  if (bytes <= MAX_OUTPUT_BYTES) return outcome;
  const size = `${(bytes / 1e6).toFixed(1)} MB`;
  throw ApplicationFailure.nonRetryable(
    outcome.aiCall
      ? `The AI call of ${input.node.type} node ${describe(input.node)} is ${size}; an AI call may be at most ${MAX_OUTPUT_BYTES / 1e6} MB: give the model less text`
      : `The output of ${input.node.type} node ${describe(input.node)} is ${size}; a node output may be at most ${MAX_OUTPUT_BYTES / 1e6} MB: narrow it (a filter, fewer fields)`,
    'OutputTooLarge',
  );
}

/** Permanent failures (a `NodeError`, a refused request of the data plane) fail the node at once; others are retried. */
export function toFailure(error: unknown, cancelled: boolean): unknown {
  if (cancelled || error instanceof ApplicationFailure) return error;
  if (error instanceof NodeError || error instanceof OutboundError) return ApplicationFailure.nonRetryable(error.message, error.type);
  if (error instanceof AppError && error.status < 500) return ApplicationFailure.nonRetryable(error.message, error.code);
  return error;
}

/** How one of the node activities runs its node: the executor, or a step of an AI node. */
type Run = (module: NodeModule, input: ExecuteNodeInput, context: ExecutionContext) => Promise<NodeOutcome> | undefined;

/** The run ledger's steps (activities/run-ledger.activity.ts), for the ledger steps a node execution carries. */
export interface NodeLedger {
  beginRun(run: RunBegin): Promise<{ insufficientCredits: boolean }>;
  finishRun(run: RunEnd): Promise<void>;
}

/**
 * Records the run's end that `input.ledger.end` carries, once the node has succeeded. A failure to record it does
 * not fail the node (a retry would run it again): the outcome says so, and the workflow records the end itself.
 */
async function endRun(ledger: NodeLedger, input: ExecuteNodeInput, outcome: NodeOutcome): Promise<NodeOutcome> {
  const end = input.ledger?.end;
  if (!end || outcome.aiCall) return outcome;
  const ended = await ledger.finishRun({ ...end, aiCredits: end.aiCredits + (outcome.aiCredits ?? 0) }).then(
    () => true,
    () => false,
  );
  return { ...outcome, ledger: { ended } };
}

/** `run` as an activity: the execution context, heartbeats, metrics, the output's size check and the failure mapping. */
function nodeActivity(deps: ExecutorDeps, ledger: NodeLedger, run: Run) {
  return (input: ExecuteNodeInput): Promise<NodeOutcome> =>
    heartbeating(async (context) => {
      // The run's start, before its first node: a run of an account without credits runs no node (a database
      // error here is retried like any other: nothing has happened yet).
      if (input.ledger?.begin && (await ledger.beginRun(input.ledger.begin)).insufficientCredits) return { ledger: { insufficientCredits: true } };
      const module = nodeModule(input.node.type);
      const timer = nodeDuration.startTimer({ type: input.node.type });
      const outboxMark = deps.outbox?.mark() ?? 0;
      // A turn's first node counts its flow's run beside its own work; the activity ends once both have (awaited
      // below; the empty catch only keeps a failure before then from going unhandled).
      const counting = input.countFlowRun && countFlowRun(deps.orm.em.fork(), input.countFlowRun.key, input.countFlowRun.flowId);
      counting?.catch(() => {});
      try {
        const running = module
          ? run(module, input, {
              ...deps,
              signal: context.cancellationSignal,
              attempt: context.info.attempt,
              temporalWorkflowId: context.info.workflowExecution?.workflowId ?? '',
              once: (effect) => once(deps.orm.em, input.executionKey, effect),
              onceFor: (part, effect) => once(deps.orm.em, `${input.executionKey}/${part}`, effect),
              onceWrites: (effect) => onceWrites(deps.orm.em, input.executionKey, effect),
            })
          : undefined;
        if (!running)
          throw ApplicationFailure.nonRetryable(`${input.node.type} nodes are not available yet in this version of agentry`, 'NotAvailable');
        const outcome = await running;
        await counting;
        // Only a node that wrote events (row changes) wakes the dispatchers.
        deps.outbox?.pokeIfWritten(outboxMark);
        await deps.afterNode?.(input, outcome, context.cancellationSignal);
        const checked = checkOutputSize(input, outcome);
        // A node paused for an AI call is not done: its duration is counted apart from finished nodes.
        timer({ outcome: outcome.aiCall ? 'ai_call' : 'success' });
        return await endRun(ledger, input, checked);
      } catch (error) {
        timer({ outcome: context.cancellationSignal.aborted ? 'cancelled' : 'failure' });
        await counting;
        throw toFailure(error, context.cancellationSignal.aborted);
      }
    });
}

/** `executeNode`: the whole node (an AI node in steps: its steps from its AI replies, for runs started before steps). */
export function createExecuteNode(deps: ExecutorDeps, ledger: NodeLedger) {
  return nodeActivity(deps, ledger, (module, input, context) =>
    module.execute ? module.execute(input, context) : module.ai && stepsExecutor(module.ai)(input, context),
  );
}

/** `prepareAiNode` and `finishAiNode`: the steps of an AI node (`NodeModule.ai`), each once per successful attempt. */
export function createAiNodeSteps(deps: ExecutorDeps, ledger: NodeLedger) {
  return {
    prepareAiNode: nodeActivity(deps, ledger, (module, input, context) => module.ai && prepareStep(module.ai, input, context)),
    finishAiNode: nodeActivity(deps, ledger, (module, input, context) => module.ai && finishStep(module.ai, input, context)),
  };
}
