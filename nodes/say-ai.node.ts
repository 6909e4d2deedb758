/**
 * SAY_AI (flows): sends `message` to the user as written, or a message the AI writes from `prompt`, the agent's
 * instructions and the recent transcript. Without a provider, a prompt-only node says `fallbackMessage` when it has
 * one (the agent's default reply uses this) and fails otherwise. A static message runs as a local activity.
 */
import { AgentConfig } from '../db/entities/index.js';
import { CONFIG_KIND } from '../db/agents/agent-defaults.js';
import { toVariableString } from '../lib/runtime/path.js';
import type { Citation, ExecuteNodeInput, NodeOutcome } from '../lib/runtime/contract.js';
import type { ChatMessage } from '../lib/runtime/ai-call.js';
import { citationsIn } from '../integrations/knowledge/grounding.js';
import { groundingFor } from './support/knowledge.js';
import { text } from './support/ai-node-support.js';
import { askAi, creditsOf, lastReply, nodeModel } from './support/ai-steps.js';
import { conversationOf, recentTranscript, say } from './support/conversation-io.js';
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type AiNodeSteps, type ExecutionContext, type NodeModule } from './node-module.js';

const WRITER =
  'You are a conversational agent talking with a user. Write your next message to the user: short, friendly and in the ' +
  "user's language. Answer with the message text only.";

const field = (value: unknown) => (toVariableString(value) ?? '').trim();

/** Says `message` (nothing when it is empty): the node's outcome. */
async function speak(
  input: ExecuteNodeInput,
  context: ExecutionContext,
  message: string,
  credits: number,
  citations: Citation[] = [],
): Promise<NodeOutcome> {
  if (!message) return { output: null };
  const sent = await say(input, context, message, credits, citations);
  return { output: { message: sent.text }, messages: [sent], aiCredits: credits };
}

/** What `finish` needs of a grounded reply: the source of each numbered passage, for the reply's citations. */
type SayAiState = { sources: Citation[] } | null;

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
    return askAi(model, { kind: 'chat', messages }, grounding && { sources: grounding.sources });
  },
  async finish(input, context, replies, state) {
    const message = lastReply(replies).content.trim() || field(input.data.fallbackMessage);
    return speak(input, context, message, creditsOf(replies), state ? citationsIn(message, state.sources) : []);
  },
};

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
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['message', 'prompt'],
  localUnless: 'prompt',
  checks: [modelCheck('TEXT')],
  ai: sayAiSteps,
};
