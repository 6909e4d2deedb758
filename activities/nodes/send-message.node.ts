import { ApplicationFailure } from '@temporalio/activity';
import type { NodeExecutor } from './types.js';

/** The conversation a SEND_MESSAGE node addresses: its own `conversationId`, else the trigger event's. */
function conversationOf(data: Record<string, unknown>, triggerPayload: unknown): string | undefined {
  const own = data.conversationId;
  if (typeof own === 'string' && own.trim()) return own.trim();
  const payload = triggerPayload as Record<string, unknown> | null | undefined;
  const fromEvent = typeof payload === 'object' && payload !== null ? payload.conversationId : undefined;
  return typeof fromEvent === 'string' && fromEvent ? fromEvent : undefined;
}

/**
 * SEND_MESSAGE pushes a message to a conversation of an agent. Conversations (and the agents that hold them) are
 * not part of this version of agentry, so the node fails at once, naming the conversation it would have written
 * to; retrying could not change that.
 */
export const executeSendMessage: NodeExecutor = async ({ data, triggerPayload }) => {
  const conversationId = conversationOf(data, triggerPayload);
  const target = conversationId
    ? `conversation "${conversationId}"`
    : 'a conversation (none given: set data.conversationId, or start the run from a conversation trigger whose payload carries conversationId)';
  throw ApplicationFailure.nonRetryable(
    `SEND_MESSAGE cannot push a message to ${target}: conversations arrive with the agents feature, which this version of agentry does not include yet`,
    'NotAvailable',
  );
};
