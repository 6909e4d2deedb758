/**
 * SAY_AI (flows): sends `message` to the user as written, or a message the AI writes from `prompt`, the agent's
 * instructions and the recent transcript. Without a provider, a prompt-only node says `fallbackMessage` when it has
 * one (the agent's default reply uses this) and fails otherwise. A static message runs as a local activity.
 */
import { AgentConfig } from '../db/entities/index.js';
import { CONFIG_KIND } from '../db/agents/agent-defaults.js';
import { toVariableString } from '../lib/runtime/path.js';
import { aiForNode, text } from './support/ai-node-support.js';
import { conversationOf, recentTranscript, say } from './support/conversation-io.js';
import { modelCheck } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type NodeExecutor, type NodeModule } from './node-module.js';

const WRITER =
  'You are a conversational agent talking with a user. Write your next message to the user: short, friendly and in the ' +
  "user's language. Answer with the message text only.";

const executeSayAi: NodeExecutor = async (input, context) => {
  const { data } = input;
  const conversation = conversationOf(input);
  const written = (toVariableString(data.message) ?? '').trim();
  const prompt = (toVariableString(data.prompt) ?? '').trim();
  const fallback = (toVariableString(data.fallbackMessage) ?? '').trim();
  let message = written;
  let credits = 0;
  if (!message && prompt) {
    if (!context.ai.provider && fallback) message = fallback;
    else {
      const { session, model } = await aiForNode(input, context, 'TEXT');
      const em = context.orm.em.fork();
      const setting = await em.findOne(AgentConfig, { agent: conversation.agentId, kind: CONFIG_KIND.setting });
      const instructions = text(setting?.values.instructions);
      const reply = await session.chat(model, {
        messages: [
          { role: 'system', content: [WRITER, instructions && `Your instructions:\n${instructions}`, prompt].filter(Boolean).join('\n\n') },
          ...(await recentTranscript(context, conversation.conversationId)),
        ],
      });
      message = reply.content.trim() || fallback;
      credits = session.credits;
    }
  }
  if (!message) return { output: null };
  const sent = await say(input, context, message, credits);
  return { output: { message: sent.text }, messages: [sent], aiCredits: credits };
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
  execute: executeSayAi,
};
