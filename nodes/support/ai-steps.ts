/**
 * AI nodes in steps (`NodeModule.ai`): prepare → AI call → finish. The workflow runs `prepareAiNode`, an `aiCall`
 * activity for the call it asks for, and `finishAiNode` with the reply (`workflows/node-runner.ts`); this module
 * turns a step's answer into the activity's outcome (the call's key, the node's credits), helps steps build their
 * calls (`askAi`, `askStructured`) and read structured replies (`readStructured`), and runs the steps the old way
 * for runs started before them (`stepsExecutor`).
 */
import type { AiModel } from '../../db/catalogs/ai-model.entity.js';
import type { AiModelType } from '../../db/catalogs/ai-model.entity.js';
import { AI_NOT_CONFIGURED, checkStructured, structuredInvalid, structuredRepair } from '../../integrations/ai/ai-gateway.js';
import { resolveModel } from '../../integrations/ai/model-resolution.js';
import { NodeError } from '../../lib/errors.js';
import type { AiCallModel, AiReply, ChatCall, ChatMessage, TranscriptionCall } from '../../lib/runtime/ai-call.js';
import type { ExecuteNodeInput, NodeOutcome } from '../../lib/runtime/contract.js';
import type { AiAsk, AiNodeSteps, AiStepResult, ExecutionContext, NodeExecutor } from '../node-module.js';

/** Whether a step asks for an AI call (rather than answering the node's outcome). */
export const isAsk = (result: AiStepResult): result is AiAsk => typeof (result as AiAsk).ask === 'object' && (result as AiAsk).ask !== null;

/** What an AI call records of its catalog model. */
const callModel = (model: AiModel | AiCallModel): AiCallModel => ({
  externalId: model.externalId,
  name: model.name,
  creditsPerMessage: model.creditsPerMessage,
});

/** A step's AI call on `model`, and what the next `finish` step gets back with its reply. */
export function askAi<S>(model: AiModel | AiCallModel, call: ChatCall | TranscriptionCall, state: S): AiAsk<S> {
  return { ask: { model: callModel(model), call }, state };
}

/** The model of an AI node's data (`aiModelId`, `model`/`aiVendor`, else the type's default); fails when no provider is configured. */
export async function nodeModel(input: ExecuteNodeInput, context: ExecutionContext, type: AiModelType, data = input.data): Promise<AiModel> {
  if (!context.ai.provider) throw new NodeError(AI_NOT_CONFIGURED, 'AiNotConfigured');
  return resolveModel(context.orm.em.fork(), data, type);
}

export const creditsOf = (replies: AiReply[]): number => replies.reduce((sum, reply) => sum + reply.record.credits, 0);

/** The reply to the call just made: the last one. */
export function lastReply(replies: AiReply[]): AiReply {
  const reply = replies.at(-1);
  if (!reply) throw new NodeError('The finish step of an AI node ran without the reply of its AI call');
  return reply;
}

/** A structured-output call in flight: its model, the call as made, and which try it is (the second is the repair). */
export interface StructuredState {
  model: AiCallModel;
  call: ChatCall;
  tries: number;
}

/** A call for JSON fitting `schema` (structured output); its state is what `readStructured` needs. */
export function askStructured(
  model: AiModel | AiCallModel,
  messages: ChatMessage[],
  name: string,
  schema: Record<string, unknown>,
): AiAsk<StructuredState> {
  const call: ChatCall = { kind: 'chat', messages, jsonSchema: { name, schema } };
  return askAi(model, call, { model: callModel(model), call, tries: 1 });
}

/**
 * The value of a structured reply. An answer that is not JSON or does not fit the schema is sent back once with the
 * validation error (the repair call, asked for here); a second miss fails the node with the model's text.
 */
export function readStructured<T>(state: StructuredState, reply: AiReply): { value: T } | AiAsk<StructuredState> {
  const schema = state.call.jsonSchema?.schema ?? {};
  const checked = checkStructured<T>(reply.content, schema);
  if ('value' in checked) return checked;
  if (state.tries >= 2) throw structuredInvalid(checked.problem, reply.content);
  const call: ChatCall = { ...state.call, messages: [...state.call.messages, ...structuredRepair(reply.content, checked.problem)] };
  return askAi(state.model, call, { model: state.model, call, tries: state.tries + 1 });
}

/** An ask whose state is part of a node's own state: `wrap` puts the inner state back into the node's. */
export function within<S, T>(ask: AiAsk<S>, wrap: (state: S) => T): AiAsk<T> {
  return { ask: ask.ask, state: wrap(ask.state) };
}

/**
 * The activity's outcome of a step: an AI call request (its key numbers the call within the node execution, as
 * the `aiCall` activity charges it: `<executionKey>/ai-<n>`) with the state for `finish`, or the node's outcome
 * with the credits of its replies.
 */
export function stepOutcome(input: ExecuteNodeInput, result: AiStepResult, replies: AiReply[]): NodeOutcome {
  if (isAsk(result))
    return {
      aiCall: { accountId: input.accountId, callKey: `${input.executionKey}/ai-${replies.length + 1}`, ...result.ask },
      aiState: result.state ?? null,
    };
  return replies.length ? { ...result, aiCredits: result.aiCredits ?? creditsOf(replies) } : result;
}

/** The `prepareAiNode` step of a node execution. */
export async function prepareStep(steps: AiNodeSteps, input: ExecuteNodeInput, context: ExecutionContext): Promise<NodeOutcome> {
  return stepOutcome(input, await steps.prepare(input, context), []);
}

/** The `finishAiNode` step: `input.aiReplies` holds every reply so far, `input.aiState` what the last step passed on. */
export async function finishStep(steps: AiNodeSteps, input: ExecuteNodeInput, context: ExecutionContext): Promise<NodeOutcome> {
  const replies = input.aiReplies ?? [];
  lastReply(replies);
  return stepOutcome(input, await steps.finish(input, context, replies, input.aiState), replies);
}

/**
 * The steps as one executor, for runs whose workflow code predates steps (their histories execute the node again
 * after each AI call, `executeNode` with one reply more): `prepare` runs once per execution (recorded like a side
 * effect, so a download is not repeated), then `finish` for each reply given; a call without a reply yet is asked
 * for the old way (`aiCall` alone). A `finish` that asks for another call does its side effects (TOOLS_AI's tool
 * calls) through `onceFor`, so repeating it answers what it did the first time. TOOLS_AI's steps ask for the calls its
 * executor made before it had steps, in the same order (the same messages, tools and tool parts), so the replies of a
 * run started then answer them; a call of another kind or model fails the node below rather than misread a reply.
 */
export function stepsExecutor(steps: AiNodeSteps): NodeExecutor {
  return async (input, context) => {
    const replies = input.aiReplies ?? [];
    let result = await context.onceFor('prepare', () => steps.prepare(input, context));
    for (let made = 0; isAsk(result); made++) {
      const reply = replies[made];
      if (!reply) return { aiCall: stepOutcome(input, result, replies.slice(0, made)).aiCall };
      // Steps are deterministic given their input and recorded effects; a different call means one is not.
      const { model, call } = result.ask;
      if (reply.kind !== call.kind || reply.record.model !== model.externalId)
        throw new NodeError(
          `AI call ${made + 1} of this node was a ${reply.kind} call on ${reply.record.model}, and is now a ${call.kind} call on ${model.externalId}`,
        );
      const answered = replies.slice(0, made + 1);
      result = await steps.finish({ ...input, aiReplies: answered }, context, answered, result.state);
    }
    return stepOutcome(input, result, replies);
  };
}
