/**
 * Unit tests of node executors (`nodes/<type>.node.test.ts`): an executor called directly, without the database,
 * Temporal or the AI gateway. The context holds only what the test gives it; touching anything else fails the test
 * naming it, so a test also proves what its executor does not need. `inActivity` runs the executor inside
 * `MockActivityEnvironment`, whose cancellation signal and attempt become the context's, as the executeNode
 * activity passes them.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import { Context } from '@temporalio/activity';
import { DefaultLogger } from '@temporalio/worker';
import type { Orm } from '../../db/orm.js';
import type { AiModel } from '../../db/catalogs/ai-model.entity.js';
import type { AiCallRequest, AiReply } from '../../lib/runtime/ai-call.js';
import type { ExecuteNodeInput, NodeOutcome } from '../../lib/runtime/contract.js';
import { AiGateway } from '../../integrations/ai/ai-gateway.js';
import type { AiProvider } from '../../integrations/ai/ai-provider.js';
import type { ExecutionContext, NodeModule } from '../../nodes/node-module.js';
import { isAsk, stepOutcome } from '../../nodes/support/ai-steps.js';

/** An activity environment whose expected failures are not logged as warnings; `cancel()` cancels its activity. */
export function activityEnvironment(): MockActivityEnvironment {
  return new MockActivityEnvironment({ attempt: 1 }, { logger: new DefaultLogger('ERROR') });
}

/** The input of one execution of a node of `type` with (already interpolated) `data`. */
export function nodeInput(type: string, data: Record<string, unknown>, more: Partial<ExecuteNodeInput> = {}): ExecuteNodeInput {
  return {
    accountId: 1,
    automationId: 1,
    node: { nodeId: 'node-1', alias: 'node-1', type },
    data: { ...data, type },
    executionKey: 'automation:1:unit/run#1',
    ...more,
  };
}

/** An execution context of just `given` (and a never-aborted signal, attempt 1): anything else throws when read. */
export function nodeContext(given: Partial<ExecutionContext> = {}): ExecutionContext {
  const base: Partial<ExecutionContext> = { signal: new AbortController().signal, attempt: 1, temporalWorkflowId: 'automation:1:unit', ...given };
  return new Proxy(base as ExecutionContext, {
    get(target, name) {
      if (name in target || typeof name === 'symbol' || name === 'then') return Reflect.get(target, name);
      throw new Error(`the executor used context.${name}, which this unit test does not provide`);
    },
  });
}

/**
 * Runs `work` as an activity of a MockActivityEnvironment, with the context's `signal` and `attempt` taken from the
 * activity's; `env` lets the test cancel it meanwhile.
 */
export async function inActivity<T>(
  given: Partial<ExecutionContext>,
  work: (context: ExecutionContext) => Promise<T>,
  env = activityEnvironment(),
): Promise<T> {
  return env.run(async () => {
    const activity = Context.current();
    return work(nodeContext({ signal: activity.cancellationSignal, attempt: activity.info.attempt, ...given }));
  });
}

/** A catalog model as the database would answer it (the only answer of `aiDeps`'s database). */
export function aiModel(more: Partial<AiModel> = {}): AiModel {
  return {
    id: 1,
    type: 'TEXT',
    name: 'Unit model',
    externalId: 'unit-model',
    creditsPerMessage: 2,
    deprecated: false,
    isDefault: true,
    ...more,
  } as AiModel;
}

/**
 * What an AI node's steps need: a gateway with a provider (its calls are asked for, never made here), and a database
 * stand-in whose every lookup answers `model`.
 */
export function aiDeps(model = aiModel()): Partial<ExecutionContext> {
  const em = { findOne: async () => model };
  return { ai: new AiGateway({} as AiProvider), orm: { em: { fork: () => em } } as unknown as Orm };
}

/** The reply of a chat call on `model`, as the aiCall activity records it. */
export function chatReply(content: string, model = aiModel()): AiReply {
  return {
    kind: 'chat',
    content,
    toolCalls: [],
    record: { model: model.externalId, promptTokens: 10, completionTokens: 5, latencyMs: 1, credits: model.creditsPerMessage },
  };
}

/** What `runNode` throws at an AI call it has no reply for: the call the workflow would make as an `aiCall` activity. */
export class AiCallNeeded extends Error {
  constructor(readonly request: AiCallRequest) {
    super(`The node needs AI call ${request.callKey}`);
    this.name = 'AiCallNeeded';
  }
}

/**
 * Runs a node as a run does: its executor, or its AI steps (`prepare`, then `finish` with each reply of
 * `input.aiReplies`, as the prepareAiNode and finishAiNode activities do). An AI call with no reply yet throws
 * `AiCallNeeded` carrying the call the workflow would make.
 */
export async function runNode(module: NodeModule, input: ExecuteNodeInput, context: ExecutionContext): Promise<NodeOutcome> {
  if (module.execute) return module.execute(input, context);
  const replies = input.aiReplies ?? [];
  let result = await module.ai!.prepare(input, context);
  for (let made = 0; isAsk(result) && made < replies.length; made++) {
    const answered = replies.slice(0, made + 1);
    result = await module.ai!.finish({ ...input, aiReplies: answered }, context, answered, result.state);
  }
  const outcome = stepOutcome(input, result, replies);
  if (outcome.aiCall) throw new AiCallNeeded(outcome.aiCall);
  return outcome;
}
