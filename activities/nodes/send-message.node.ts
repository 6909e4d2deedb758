/**
 * SEND_MESSAGE pushes a message to a conversation of an agent: its own `conversationId`, else the conversation of
 * the trigger event. Conversations arrive with the conversation runtime of agents; until then the node fails at
 * once, naming the conversation it would have written to.
 */
import { modelCheck, sendsDynamicMessage } from './checks/ai-model.check.js';
import { DEFAULT_HANDLES, MODEL_FIELDS, NodeError, type NodeExecutor, type NodeModule } from './node-module.js';

/** The conversation a SEND_MESSAGE node addresses: its own `conversationId`, else the trigger event's. */
function conversationOf(data: Record<string, unknown>, triggerPayload: unknown): string | undefined {
  const own = data.conversationId;
  if (typeof own === 'string' && own.trim()) return own.trim();
  const payload = triggerPayload as Record<string, unknown> | null | undefined;
  const fromEvent = typeof payload === 'object' && payload !== null ? payload.conversationId : undefined;
  return typeof fromEvent === 'string' && fromEvent ? fromEvent : undefined;
}

const executeSendMessage: NodeExecutor = async ({ data, triggerPayload }) => {
  const conversationId = conversationOf(data, triggerPayload);
  const target = conversationId
    ? `conversation "${conversationId}"`
    : 'a conversation (none given: set data.conversationId, or start the run from a conversation trigger whose payload carries conversationId)';
  throw new NodeError(
    `SEND_MESSAGE cannot push a message to ${target}: conversations arrive with the conversation runtime of agents, which this version of agentry does not include yet`,
    'NotAvailable',
  );
};

export const sendMessageNode: NodeModule = {
  type: 'SEND_MESSAGE',
  scopes: ['workflow'],
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
  execute: executeSendMessage,
};
