/**
 * Conversations of an agent (DESIGN.md, Conversations): start one (the greeting runs), send a user message (one turn,
 * answered with the agent's messages), follow its messages as server-sent events, end it, give feedback; and the
 * transcripts: the list (date range, channel, status filters) and one conversation with every message.
 */
import type { Client } from '@temporalio/client';
import { endConversation, sendUserMessage, startConversation } from '../../temporal/conversation-runtime.js';
import { findAgent } from '../../../db/agents/agents.service.js';
import { AGENT_CHANNELS } from '../../../db/agents/agent-defaults.js';
import {
  conversationView,
  findAgentConversation,
  findConversation,
  listConversations,
  listMessages,
  recordFeedback,
} from '../../../db/agents/conversations.service.js';
import type { RouteRegistry } from '../../route-registry.js';
import type { JsonSchema } from '../../validation.js';
import { Reply } from '../../route-registry.js';
import { dateBoundQuery, pageSchema, strictObject } from '../../schemas/common.schema.js';
import { agentParams, type AgentId } from './agent-params.js';
import { messageStream, resumeFrom } from './conversation-stream.js';
import type { ConversationFeed } from '../../conversation-feed.js';

const tag = 'Agent conversations';
type ConversationParams = AgentId & { conversationId: string };
const conversationParams = agentParams([], ['conversationId']);

const messageProperties = {
  id: { type: 'string' },
  author: { enum: ['user', 'agent', 'operator'], description: 'operator: a person of the account, in a handed-off conversation' },
  text: { type: 'string' },
  turn: { type: 'integer' },
  flowId: { type: ['integer', 'null'] },
  flowVersion: { type: ['integer', 'null'], description: 'The version of the flow whose node said it (null for other messages)' },
  nodeId: { type: ['string', 'null'] },
  credits: { type: 'number' },
  temporalRunId: { type: ['string', 'null'], description: 'The run of the conversation workflow whose turn wrote it' },
  citations: {
    type: 'array',
    description: 'The knowledge-base documents and web pages (web_search) an agent reply cites (empty for other messages)',
    items: {
      oneOf: [
        strictObject({ documentId: { type: 'string' }, title: { type: 'string' } }, 'A knowledge-base document'),
        strictObject({ url: { type: 'string' }, title: { type: 'string' } }, 'A web page'),
      ],
    },
  },
  createdAt: { type: 'string' },
};
/** A message of a transcript; `metadata` (a widget visitor's page URL and user agent) only where recorded. */
export const MessageSchema = {
  ...strictObject(messageProperties),
  properties: {
    ...messageProperties,
    metadata: {
      type: ['object', 'null'],
      additionalProperties: false,
      properties: {
        pageUrl: { type: 'string' },
        userAgent: { type: 'string' },
        operator: strictObject({ userId: { type: ['integer', 'null'] }, name: { type: ['string', 'null'] } }, 'Who wrote an operator message'),
        voice: { type: 'boolean', description: "A person's voice message on WhatsApp, Messenger or Instagram: the text is its transcript" },
        toolCalls: {
          type: 'array',
          description:
            "An agent's reply: the tools the AI called before writing it (arguments over 500 characters of JSON are cut to their start); never shown to the visitor",
          items: strictObject({ name: { type: 'string' }, arguments: {} }, 'A tool call'),
        },
      },
      description:
        "A widget visitor's message: the page it was written on and the browser's user agent (never the address); an operator's: who wrote it; a voice message's: voice; an agent's reply: the AI's tool calls",
    },
    delivery: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'error', 'externalId'],
      properties: {
        status: { enum: ['pending', 'sent', 'delivered', 'read', 'failed', null] },
        error: { type: ['string', 'null'], description: 'Why the network did not deliver it (status failed)' },
        externalId: { type: ['string', 'null'], description: "The message's id on the network" },
      },
      description:
        "A message on WhatsApp, Messenger or Instagram: its id there and, for the agent's, where it stands (pending until sent, then as the network reports)",
    },
  },
};

const conversationProperties = {
  id: { type: 'string' },
  assistantId: { type: 'string' },
  channel: { type: 'string' },
  status: {
    enum: ['ACTIVE', 'HANDED_OFF', 'ENDED'],
    description: 'HANDED_OFF: a person has it (operator messages); the agent is silent until resumed',
  },
  turns: { type: 'integer' },
  messageCount: { type: 'integer' },
  creditsUsed: { type: 'number' },
  handoffs: { type: 'integer', description: 'Times it was handed to a person' },
  feedback: { type: ['object', 'null'] },
  endReason: { type: ['string', 'null'] },
  startedAt: { type: 'string' },
  lastMessageAt: { type: 'string' },
  endedAt: { type: ['string', 'null'] },
  temporalWorkflowId: { type: 'string', description: 'Open it in the Temporal UI: every turn is an update of this workflow' },
};
export const ConversationSchema = strictObject(conversationProperties);
/** Path parameters of one conversation of an agent. */
export { conversationParams, type ConversationParams };
const temporalRef = strictObject({ workflowId: { type: 'string' }, runId: { type: 'string' } });
export const TurnSchema = {
  type: 'object',
  required: ['conversationId', 'turn', 'messages', 'temporal'],
  additionalProperties: false,
  properties: {
    conversationId: { type: 'string' },
    turn: { type: 'integer' },
    messages: { type: 'array', items: MessageSchema },
    temporal: temporalRef,
    error: strictObject({ nodeId: { type: 'string' }, message: { type: 'string' } }),
  },
};

/** Feedback on a conversation: a 1-5 rating and/or a comment. */
export const FeedbackBodySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { rating: { type: ['integer', 'null'], minimum: 1, maximum: 5 }, comment: { type: ['string', 'null'], maxLength: 5000 } },
};

/** The body of a user's message: `text` of at most `maxText` characters, an optional client `messageId`, and `extra`. */
export function userMessageBody(maxText: number, extra: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    required: ['text'],
    additionalProperties: false,
    properties: {
      text: { type: 'string', minLength: 1, maxLength: maxText, pattern: '\\S' },
      messageId: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._:-]+$' },
      ...extra,
    },
  };
}

/** `uiUrl`: the Temporal UI address (TEMPORAL_UI_URL); a transcript links to its conversation workflow there. */
export function conversationRoutes(api: RouteRegistry, temporal: Client, feed: ConversationFeed, taskQueue: string, uiUrl?: string): void {
  api.resource<{ agentId: string; conversationId: string }>('/agents/:agentId/conversations/:conversationId', (em, accountId, p) =>
    findAgentConversation(em, accountId, p.agentId, p.conversationId),
  );
  const namespace = encodeURIComponent(temporal.options.namespace);
  const uiLink = (workflowId: string) => (uiUrl ? `${uiUrl}/namespaces/${namespace}/workflows/${encodeURIComponent(workflowId)}` : null);
  api.add<{ channel?: string }, unknown, AgentId>({
    method: 'post',
    operationId: 'startConversation',
    path: '/agents/:agentId/conversations',
    scope: 'any',
    tag,
    status: 201,
    summary: 'Starts a conversation (livechat unless `channel` says otherwise); answers it with the greeting messages',
    params: agentParams(),
    body: { type: 'object', additionalProperties: false, properties: { channel: { enum: [...AGENT_CHANNELS] } } },
    responses: {
      201: {
        description: 'The conversation and the agent greeting',
        schema: strictObject({ ...conversationProperties, messages: { type: 'array', items: MessageSchema }, temporal: temporalRef }),
      },
      409: { description: 'The agent is offline, or the channel is turned off' },
    },
    handler: async ({ auth, em, params, body }) =>
      startConversation(em, temporal, taskQueue, await findAgent(em, auth.account.id, params.agentId), body.channel ?? 'livechat'),
  });
  api.add<{ text: string; messageId?: string }, unknown, ConversationParams>({
    method: 'post',
    operationId: 'sendConversationMessage',
    path: '/agents/:agentId/conversations/:conversationId/messages',
    scope: 'any',
    tag,
    summary: "Sends the user's message: runs one turn and answers the agent's messages (a resent messageId answers the same turn)",
    params: conversationParams,
    body: userMessageBody(20000),
    responses: { 200: { description: 'The turn', schema: TurnSchema }, 409: { description: 'The conversation has ended' } },
    handler: async ({ auth, em, params, body }) =>
      sendUserMessage(temporal, await findAgentConversation(em, auth.account.id, params.agentId, params.conversationId), body),
  });
  api.add<unknown, { after?: string }, ConversationParams>({
    method: 'get',
    operationId: 'streamConversation',
    path: '/agents/:agentId/conversations/:conversationId/stream',
    scope: 'any',
    tag,
    summary:
      'The messages of the conversation as server-sent events (`message` events, with the message id as event id; `status` with a message sent before whose delivery status moved; `end` when it ends), after `after` (a message id, or the `Last-Event-ID` header)',
    params: conversationParams,
    query: { type: 'object', additionalProperties: false, properties: { after: { type: 'string', pattern: '^\\d{1,19}$' } } },
    responses: { 200: { description: 'An event stream', contentTypes: ['text/event-stream'] } },
    handler: async ({ auth, em, params, query, headers }) => {
      const conversation = await findConversation(em, await findAgent(em, auth.account.id, params.agentId), params.conversationId);
      return new Reply(200, messageStream(feed, em, conversation.id, resumeFrom(query.after, headers['last-event-id'])), {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
      });
    },
  });
  api.add<unknown, unknown, ConversationParams>({
    method: 'post',
    operationId: 'endConversation',
    path: '/agents/:agentId/conversations/:conversationId/end',
    scope: 'any',
    tag,
    summary: 'Ends the conversation (fires CONVERSATION_ENDED once); an ended one is answered as it is',
    params: conversationParams,
    responses: { 200: { description: 'The conversation', schema: ConversationSchema } },
    handler: async ({ auth, em, params }) =>
      endConversation(em, temporal, await findAgent(em, auth.account.id, params.agentId), params.conversationId),
  });
  api.add<{ rating?: number | null; comment?: string | null }, unknown, ConversationParams>({
    method: 'post',
    operationId: 'sendConversationFeedback',
    path: '/agents/:agentId/conversations/:conversationId/feedback',
    scope: 'any',
    tag,
    summary: "Records the user's feedback (a 1-5 rating and/or a comment) and fires FEEDBACK_CAPTURED",
    params: conversationParams,
    body: FeedbackBodySchema,
    responses: { 200: { description: 'The conversation', schema: ConversationSchema } },
    handler: async ({ auth, em, params, body }) => {
      const conversation = await findConversation(em, await findAgent(em, auth.account.id, params.agentId), params.conversationId);
      return conversationView(await recordFeedback(em, conversation, { rating: body.rating ?? null, comment: body.comment ?? null }));
    },
  });
  api.add<
    unknown,
    { limit: number; cursor?: string; startDate?: string | null; endDate?: string | null; channel?: string; status?: string },
    AgentId
  >({
    method: 'get',
    operationId: 'listConversations',
    path: '/agents/:agentId/conversations',
    scope: 'U',
    tag,
    summary: 'Conversations of the agent, newest first; filters: start date range, channel, status',
    params: agentParams(),
    query: {
      type: 'object',
      additionalProperties: false,
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
        cursor: { type: 'string', maxLength: 200 },
        startDate: dateBoundQuery('Started on or after this day (UTC): YYYY-MM-DD or an ISO date-time (its day counts)'),
        endDate: dateBoundQuery('Started on or before this day (UTC): YYYY-MM-DD or an ISO date-time (its day counts)'),
        channel: { enum: [...AGENT_CHANNELS] },
        status: { enum: ['ACTIVE', 'HANDED_OFF', 'ENDED'] },
      },
    },
    responses: { 200: { description: '{ agentry: [conversation], nextCursor }', schema: pageSchema(ConversationSchema) } },
    handler: async ({ auth, em, params, query }) => listConversations(em, await findAgent(em, auth.account.id, params.agentId), query),
  });
  api.add<unknown, unknown, ConversationParams>({
    method: 'get',
    operationId: 'getConversation',
    path: '/agents/:agentId/conversations/:conversationId',
    scope: 'U',
    tag,
    summary: 'A conversation with its transcript: every message with author, time, flow, node and credits',
    params: conversationParams,
    responses: {
      200: {
        description: 'Conversation with messages',
        schema: strictObject({
          ...conversationProperties,
          temporalUiUrl: { type: ['string', 'null'], description: 'The conversation workflow in the Temporal UI (TEMPORAL_UI_URL)' },
          messages: { type: 'array', items: MessageSchema },
        }),
      },
      404: { description: 'No such conversation' },
    },
    handler: async ({ auth, em, params }) => {
      const conversation = await findConversation(em, await findAgent(em, auth.account.id, params.agentId), params.conversationId);
      const view = conversationView(conversation);
      return { ...view, temporalUiUrl: uiLink(view.temporalWorkflowId), messages: await listMessages(em, conversation.id) };
    },
  });
}
