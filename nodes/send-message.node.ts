/**
 * SEND_MESSAGE pushes a message to a conversation of an agent: its own `conversationId`, else the conversation of
 * the trigger event (conversation triggers carry it). The message joins the transcript as the agent's and reaches
 * the user on the conversation's channel (livechat clients see it on the stream endpoint). `isDynamic`: the AI
 * writes the message from `message` as a prompt. Written once per node execution, whatever Temporal retries.
 */
import { Conversation } from '../db/agents/conversation.entity.js';
import { appendMessage } from '../db/agents/conversations.service.js';
import { toVariableString } from '../lib/runtime/path.js';
import { askAi, creditsOf, lastReply, nodeModel } from './support/ai-steps.js';
import type { ExecuteNodeInput, NodeOutcome } from '../lib/runtime/contract.js';
import { recentTranscript } from './support/conversation-io.js';
import { modelCheck, sendsDynamicMessage } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, type AiNodeSteps, type ExecutionContext, type NodeModule } from './node-module.js';
import { NodeError } from '../lib/errors.js';

/** The conversation a SEND_MESSAGE node addresses: its own `conversationId`, else the trigger event's. */
function conversationOf(data: Record<string, unknown>, triggerPayload: unknown): string | undefined {
  const own = data.conversationId;
  if (typeof own === 'string' && own.trim()) return own.trim();
  const payload = triggerPayload as Record<string, unknown> | null | undefined;
  const fromEvent = typeof payload === 'object' && payload !== null ? payload.conversationId : undefined;
  return typeof fromEvent === 'string' && fromEvent ? fromEvent : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The message's conversation and the turn the message joins. */
interface Addressed {
  conversationId: string;
  turn: number;
}

async function send(input: ExecuteNodeInput, context: ExecutionContext, to: Addressed, text: string, credits: number): Promise<NodeOutcome> {
  if (!text) throw new NodeError('SEND_MESSAGE has no message to send', 'InvalidNode');
  const sent = await appendMessage(context.orm.em.fork(), {
    accountId: input.accountId,
    conversationId: to.conversationId,
    key: `${input.executionKey}/send`,
    author: 'agent',
    text,
    turn: to.turn,
    credits,
  });
  return { output: { conversationId: to.conversationId, message: sent }, aiCredits: credits };
}

/** A written message is sent by `prepare` alone; a dynamic one asks the AI to write it, and `finish` sends it. */
const sendMessageSteps: AiNodeSteps<Addressed> = {
  async prepare(input, context) {
    const { data, accountId } = input;
    const conversationId = conversationOf(data, input.triggerPayload);
    if (!conversationId)
      throw new NodeError('SEND_MESSAGE has no conversation: set data.conversationId, or start the run from a conversation trigger', 'InvalidNode');
    const em = context.orm.em.fork();
    const conversation = UUID.test(conversationId) ? await em.findOne(Conversation, { id: conversationId, account: accountId }) : null;
    if (!conversation) throw new NodeError(`Conversation ${conversationId} not found in this account`, 'NotFound');
    const to = { conversationId, turn: conversation.turns };
    const text = (toVariableString(data.message) ?? '').trim();
    if (data.isDynamic !== true || !text) return send(input, context, to, text, 0);
    const model = await nodeModel(input, context, 'TEXT');
    const messages = [
      { role: 'system' as const, content: `Write the agent's next message to the user of this conversation, following this instruction:\n${text}` },
      ...(await recentTranscript(context, conversationId)),
    ];
    return askAi(model, { kind: 'chat', messages }, to);
  },
  async finish(input, context, replies, to) {
    return send(input, context, to, lastReply(replies).content.trim(), creditsOf(replies));
  },
};

export const sendMessageNode: NodeModule = {
  type: 'SEND_MESSAGE',
  scopes: ['automation'],
  summary: "Pushes a message to a conversation (its conversationId, else the trigger event's)",
  data: {
    properties: {
      conversationId: { type: ['string', 'null'] },
      message: { type: ['string', 'null'], maxLength: 20000 },
      isDynamic: { type: ['boolean', 'null'], description: 'true: the message is AI-generated from message as a prompt' },
      ...MODEL_FIELDS,
    },
  },
  handles: DEFAULT_HANDLES,
  readsTriggerPayload: true,
  checks: [modelCheck('TEXT', sendsDynamicMessage)],
  ai: sendMessageSteps,
};
