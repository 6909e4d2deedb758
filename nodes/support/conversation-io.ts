/**
 * What flow nodes do to their conversation: say a message to the user (written to the transcript once per node
 * execution, whatever Temporal retries), and read the recent transcript an AI reply is written from.
 */
import { ConversationMessage } from '../../db/agents/conversation-message.entity.js';
import { appendMessage } from '../../db/agents/conversations.service.js';
import type { Citation, ConversationNodeContext, ExecuteNodeInput, MessageMetadata, SentMessage } from '../../lib/runtime/contract.js';
import type { ChatMessage } from '../../integrations/ai/ai-provider.js';
import type { ExecutionContext } from '../node-module.js';
import { NodeError } from '../../lib/errors.js';

/** The node's conversation; a flow node run outside one (a misconfigured caller) fails at once. */
export function conversationOf(input: ExecuteNodeInput): ConversationNodeContext {
  if (!input.conversation) throw new NodeError(`${input.node.type} runs only in a conversation of an agent`, 'InvalidNode');
  return input.conversation;
}

/** Writes the agent's message to the transcript, keyed by the node execution (a retry answers the first write). */
export async function say(
  input: ExecuteNodeInput,
  context: ExecutionContext,
  text: string,
  credits: number,
  citations: Citation[] = [],
  metadata: MessageMetadata | null = null,
): Promise<SentMessage> {
  const conversation = conversationOf(input);
  return appendMessage(context.orm.em.fork(), {
    accountId: input.accountId,
    conversationId: conversation.conversationId,
    key: `${input.executionKey}/say`,
    author: 'agent',
    text,
    turn: conversation.turn,
    flowId: conversation.flowId,
    flowVersion: conversation.flowVersion ?? null,
    nodeId: conversation.flowId === null ? null : input.node.nodeId,
    credits,
    temporalRunId: conversation.temporalRunId,
    citations,
    metadata,
    // The node's activity sends it once the node is done (`afterNode`).
    holdDelivery: !!context.sendsSaidAtOnce,
  });
}

/** The last `count` messages of the conversation as chat messages, oldest first. */
export async function recentTranscript(context: ExecutionContext, conversationId: string, count = 20): Promise<ChatMessage[]> {
  const rows = await context.orm.em.fork().find(ConversationMessage, { conversation: conversationId }, { orderBy: { id: 'desc' }, limit: count });
  return rows.reverse().map((m) => ({ role: m.author === 'user' ? 'user' : 'assistant', content: m.text }));
}
