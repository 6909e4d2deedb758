/**
 * SAY_AI (flows): sends `message` to the user as written, or a message the AI writes from `prompt`, the agent's
 * instructions and the recent transcript. Without a provider, a prompt-only node says `fallbackMessage` when it has
 * one (the agent's default reply uses this) and fails otherwise. A static message runs as a local activity.
 * `conversationAction` ends the conversation or hands it to a person after the message (a flow's explicit use of the
 * system tools); the agent's default reply to a user message is offered the system tools its setting turns on.
 */
import { AgentConfig } from '../db/agents/agent-config.entity.js';
import { CONFIG_KIND } from '../db/agents/agent-defaults.js';
import { toVariableString } from '../lib/runtime/path.js';
import type { Citation, ConversationAction, ExecuteNodeInput, NodeOutcome, ToolCallNote } from '../lib/runtime/contract.js';
import type { AiCallModel, ChatCall, ChatMessage } from '../lib/runtime/ai-call.js';
import { citationsIn } from '../integrations/knowledge/grounding.js';
import { groundingFor } from './support/knowledge.js';
import { text } from './support/ai-node-support.js';
import { askAi, creditsOf, lastReply, nodeModel } from './support/ai-steps.js';
import { actionsOf, systemToolNames, systemTools } from './support/ai-tools/system-tools.js';
import { parseArguments, runToolCalls, toolMessage } from './support/ai-tools/tool-messages.js';
import { conversationOf, recentTranscript, say } from './support/conversation-io.js';
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type AiNodeSteps, type ExecutionContext, type NodeModule } from './node-module.js';

const WRITER =
  'You are a conversational agent talking with a user. Write your next message to the user: short, friendly and in the ' +
  "user's language. Answer with the message text only.";

const field = (value: unknown) => (toVariableString(value) ?? '').trim();

/** Says `message` (nothing when it is empty): the node's outcome, with what the turn does after it (`conversationAction`, tools). */
async function speak(
  input: ExecuteNodeInput,
  context: ExecutionContext,
  message: string,
  credits: number,
  citations: Citation[] = [],
  actions: ConversationAction[] = [],
  toolCalls: ToolCallNote[] = [],
): Promise<NodeOutcome> {
  const all = [...actions, ...configuredAction(input.data.conversationAction)];
  const acting = all.length ? { conversationActions: all } : {};
  if (!message) return { output: null, ...acting };
  const sent = await say(input, context, message, credits, citations, toolCalls.length ? { toolCalls } : null);
  return { output: { message: sent.text }, messages: [sent], aiCredits: credits, ...acting };
}

/** SAY_AI's `conversationAction`: the flow ends the conversation, or hands it to a person, after the message. */
function configuredAction(value: unknown): ConversationAction[] {
  if (value === 'end_conversation') return [{ type: 'END' }];
  if (value === 'handoff_to_human') return [{ type: 'HANDOFF' }];
  return [];
}

/** Tool rounds the agent's default reply may make before it must answer. */
const MAX_TOOL_ROUNDS = 3;

/**
 * What `finish` needs: the source of each numbered passage or page (the reply's citations); for a reply offered
 * system tools, the model and the call so far (a tool call is answered and the call asked again), the rounds made and
 * the calls that act on the conversation.
 */
type SayAiState = {
  sources: Citation[];
  tools?: { model: AiCallModel; call: ChatCall; rounds: number; calls: { name: string; arguments: unknown; result: unknown }[] };
} | null;

/**
 * A written message is said by `prepare` alone; a prompt asks the AI for the message, which `finish` says. With
 * knowledge bases (the node's, the agent's), the passages retrieved for the user's message ground the reply, which
 * cites the documents of those it uses.
 */
const sayAiSteps: AiNodeSteps<SayAiState> = {
  async prepare(input, context) {
    const { data } = input;
    const conversation = conversationOf(input);
    const written = field(data.message);
    const prompt = field(data.prompt);
    const fallback = field(data.fallbackMessage);
    if (written || !prompt) return speak(input, context, written, 0);
    if (!context.ai.provider && fallback) return speak(input, context, fallback, 0);
    const model = await nodeModel(input, context, 'TEXT');
    const setting = await context.orm.em.fork().findOne(AgentConfig, { agent: conversation.agentId, kind: CONFIG_KIND.setting });
    const instructions = text(setting?.values.instructions);
    const grounding = await groundingFor(input, context, conversation.message);
    const messages: ChatMessage[] = [
      { role: 'system', content: [WRITER, instructions && `Your instructions:\n${instructions}`, prompt].filter(Boolean).join('\n\n') },
      ...(grounding ? [grounding.message] : []),
      ...(await recentTranscript(context, conversation.conversationId)),
    ];
    const tools = await replyTools(input, context);
    if (!tools.length) return askAi(model, { kind: 'chat', messages }, grounding && { sources: grounding.sources });
    const call: ChatCall = { kind: 'chat', messages, tools: tools.map((t) => t.definition) };
    const ask = askAi(model, call, null);
    return { ...ask, state: { sources: grounding?.sources ?? [], tools: { model: ask.ask.model, call, rounds: 0, calls: [] } } };
  },
  async finish(input, context, replies, state: SayAiState) {
    const reply = lastReply(replies);
    const tooling = state?.tools;
    if (tooling && reply.toolCalls.length && tooling.rounds < MAX_TOOL_ROUNDS) {
      // The model called system tools: run them (each call's side effect once) and ask it again with their answers.
      const sources = [...state.sources];
      const calls = [...tooling.calls];
      const results = await runToolCalls(await replyTools(input, context), reply.toolCalls, tooling.rounds + 1);
      const messages: ChatMessage[] = [...tooling.call.messages, { role: 'assistant', content: reply.content, toolCalls: reply.toolCalls }];
      for (const [index, toolCall] of reply.toolCalls.entries()) {
        calls.push({ name: toolCall.name, arguments: parseArguments(toolCall.arguments), result: compact(results[index]) });
        messages.push(toolMessage(toolCall.id, results[index], sources));
      }
      const call: ChatCall = { ...tooling.call, messages };
      return askAi(tooling.model, call, { sources, tools: { ...tooling, call, rounds: tooling.rounds + 1, calls } });
    }
    const message = reply.content.trim() || field(input.data.fallbackMessage);
    const citations = state ? citationsIn(message, state.sources) : [];
    const calls = tooling?.calls ?? [];
    return speak(input, context, message, creditsOf(replies), citations, actionsOf(calls), calls.map(toolCallNote));
  },
};

/**
 * The system tools the agent's setting turns on, offered to its default reply to a user message (the turn's own
 * reply; a flow's SAY_AI says what its flow means to say, and a flow's TOOLS_AI is where its tools are).
 */
async function replyTools(input: ExecuteNodeInput, context: ExecutionContext) {
  const conversation = input.conversation;
  if (!conversation || conversation.flowId !== null || conversation.message === undefined || input.node.nodeId !== 'default_reply') return [];
  return systemTools(input, context, await systemToolNames(input, context));
}

/** Arguments longer than this (as JSON) are noted by their start only. */
const NOTE_ARGUMENTS_CHARS = 500;

/** A tool call as the transcript notes it for the people reading it: the name, and the arguments cut short. */
function toolCallNote(call: { name: string; arguments: unknown }): ToolCallNote {
  const json = JSON.stringify(call.arguments ?? null);
  return { name: call.name, arguments: json.length > NOTE_ARGUMENTS_CHARS ? `${json.slice(0, NOTE_ARGUMENTS_CHARS)}…` : call.arguments };
}

/** What the state keeps of a tool's answer: whether it acted (`actionsOf` reads `ok`), not the results it showed. */
const compact = (result: unknown) =>
  typeof result === 'object' && result !== null && 'ok' in result ? { ok: (result as { ok: unknown }).ok } : null;

export const sayAiNode: NodeModule = {
  type: 'SAY_AI',
  scopes: ['flow'],
  summary: 'Sends a message to the user, as written or AI-generated from a prompt',
  data: {
    properties: {
      message: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable' },
      prompt: { type: ['string', 'null'], maxLength: 20000, description: 'Interpolable; the AI writes the message from it' },
      fallbackMessage: {
        type: ['string', 'null'],
        maxLength: 20000,
        description: 'Said instead of the AI-written message when no AI provider is configured (agentry extension)',
      },
      conversationAction: {
        enum: ['end_conversation', 'handoff_to_human', null],
        description:
          'After the message, end the conversation (reason AGENT) or hand it to a person (status HANDED_OFF), as the system tools of ' +
          'those names do (agentry extension)',
      },
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['message', 'prompt'],
  localUnless: 'prompt',
  checks: [modelCheck('TEXT')],
  ai: sayAiSteps,
};
