/**
 * The widget API under `/widget/v1` (outside `/public/v1`: no account key). `config` and `sessions` are public, with
 * the agent's allowed origins; a session's conversation is then used through routes that take its token
 * (`Authorization: Bearer <token>`): the transcript (to resume), messages, the event stream, feedback and end — the
 * same conversation runtime as the key-authenticated routes, on the `livechat` channel.
 */
import type { Client } from '@temporalio/client';
import { conversationView, recordFeedback } from '../../db/agents/conversations.service.js';
import { Reply, type RouteInput, type RouteRegistry } from '../route-registry.js';
import { endConversation, sendUserMessage } from '../temporal/conversation-runtime.js';
import { strictObject } from '../schemas/common.schema.js';
import { forVisitor, type Caller, type SessionRequest, type WidgetSessions } from '../widget/widget-sessions.js';
import { agentParams, type AgentId } from './agents/agent-params.js';
import { ConversationSchema, FeedbackBodySchema, MessageSchema, TurnSchema, userMessageBody } from './agents/conversations.routes.js';
import { messageStream, resumeFrom } from './agents/conversation-stream.js';
import type { ConversationFeed } from '../conversation-feed.js';

export const WIDGET_PREFIX = '/widget/v1';
const tag = 'Livechat widget';
type ConversationParams = AgentId & { conversationId: string };
const conversationParams = agentParams([], ['conversationId']);
const themeSchema = { type: 'object', description: "The agent's theme (GET /agents/{agentId}/theme)" };
const auth401 = { description: 'No session token of this conversation, or an expired one' };

/** Longest message a visitor may send. */
export const WIDGET_MESSAGE_MAX = 4000;

const caller = (input: RouteInput<unknown, unknown, unknown>): Caller => ({
  origin: input.headers.origin,
  selfOrigin: input.selfOrigin,
  address: input.clientAddress,
});

const SessionSchema = strictObject({
  status: { const: 'online' },
  token: { type: 'string', description: 'Send as `Authorization: Bearer <token>` to the conversation routes' },
  expiresAt: { type: 'string' },
  conversationId: { type: 'string' },
  resumed: { type: 'boolean', description: 'The conversation of `resume` (or of the identified visitor) goes on' },
  feedback: { type: 'boolean', description: 'The agent asks for feedback when the conversation ends' },
  theme: themeSchema,
  visitor: { type: ['object', 'null'] },
  messages: { type: 'array', items: MessageSchema },
});
const OfflineSchema = strictObject({ status: { const: 'offline' }, theme: themeSchema, message: { type: 'string' } });

export function widgetRoutes(api: RouteRegistry, sessions: WidgetSessions, temporal: Client, feed: ConversationFeed): void {
  const authorize = ({ em, params, headers }: RouteInput<unknown, unknown, ConversationParams>) =>
    sessions.authorize(em, params.agentId, params.conversationId, headers.authorization);
  api.add<unknown, unknown, AgentId>({
    method: 'get',
    path: `${WIDGET_PREFIX}/agents/:agentId/config`,
    operationId: 'getWidgetConfig',
    scope: 'public',
    tag,
    summary: "The widget's theme and whether the agent serves livechat now (`online` or `offline`); starts nothing",
    params: agentParams(),
    responses: { 200: { description: 'Theme and status', schema: strictObject({ status: { enum: ['online', 'offline'] }, theme: themeSchema }) } },
    handler: ({ em, params }) => sessions.config(em, params.agentId),
  });
  api.add<SessionRequest, unknown, AgentId>({
    method: 'post',
    path: `${WIDGET_PREFIX}/agents/:agentId/sessions`,
    operationId: 'startWidgetSession',
    scope: 'public',
    tag,
    status: 201,
    summary:
      'Starts a visitor session: a short-lived token scoped to one livechat conversation (resumed from `resume` or the identified visitor, else new with its greeting)',
    params: agentParams(),
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        resume: {
          type: 'string',
          maxLength: 2000,
          description: 'A token of an earlier session (even expired): its conversation goes on while active',
        },
        userId: { type: 'string', minLength: 1, maxLength: 200, description: "The host site's id of a signed-in visitor; needs userHash" },
        userHash: {
          type: 'string',
          pattern: '^[0-9a-fA-F]{64}$',
          description: 'hex(HMAC-SHA256(identity secret, userId)), computed on the host site server',
        },
        name: { type: 'string', maxLength: 200, description: 'Identified visitors only: the built-in contact_name' },
        email: { type: 'string', maxLength: 320, description: 'Identified visitors only: the built-in contact_email' },
        pageUrl: { type: 'string', maxLength: 2000 },
      },
    },
    responses: {
      201: { description: 'The session, the theme and the conversation so far', schema: SessionSchema },
      200: { description: 'The agent is offline or livechat is off: the theme and its offline text', schema: OfflineSchema },
      401: { description: 'userId without a matching userHash' },
      403: { description: "The page's Origin is not in the livechat allowedOrigins" },
      409: { description: 'Identity verification asked for, but the agent has no identity secret' },
      429: { description: 'Too many sessions from this address (Retry-After)' },
    },
    handler: async (input) => {
      const session = await sessions.start(input.em, input.params.agentId, input.body, caller(input));
      return new Reply(session.status === 'online' ? 201 : 200, session);
    },
  });
  api.add<unknown, unknown, ConversationParams>({
    method: 'get',
    path: `${WIDGET_PREFIX}/agents/:agentId/conversations/:conversationId`,
    operationId: 'getWidgetConversation',
    scope: 'public',
    tag,
    summary: 'The conversation of the session token: status and transcript',
    params: conversationParams,
    responses: {
      200: {
        description: 'Status and messages',
        schema: strictObject({
          conversationId: { type: 'string' },
          status: { enum: ['ACTIVE', 'HANDED_OFF', 'ENDED'] },
          messages: { type: 'array', items: MessageSchema },
        }),
      },
      401: auth401,
    },
    handler: async (input) => sessions.transcript(input.em, (await authorize(input)).conversation),
  });
  api.add<{ text: string; messageId?: string; pageUrl?: string }, unknown, ConversationParams>({
    method: 'post',
    path: `${WIDGET_PREFIX}/agents/:agentId/conversations/:conversationId/messages`,
    operationId: 'sendWidgetMessage',
    scope: 'public',
    tag,
    summary: "The visitor's message: one turn, answered with the agent's messages (also on the stream); the page URL and user agent are recorded",
    params: conversationParams,
    body: userMessageBody(WIDGET_MESSAGE_MAX, { pageUrl: { type: 'string', maxLength: 2000 } }),
    responses: {
      200: { description: 'The turn', schema: TurnSchema },
      401: auth401,
      409: { description: 'The conversation has ended' },
      429: { description: 'Too many messages from this session or address (Retry-After)' },
    },
    handler: async (input) => {
      const { conversation } = await authorize(input);
      await sessions.charge(caller(input), conversation.id);
      const userAgent = input.headers['user-agent']?.slice(0, 500);
      const metadata = { ...(input.body.pageUrl ? { pageUrl: input.body.pageUrl } : {}), ...(userAgent ? { userAgent } : {}) };
      return sendUserMessage(temporal, conversation, { text: input.body.text, messageId: input.body.messageId, metadata });
    },
  });
  api.add<unknown, { after?: string }, ConversationParams>({
    method: 'get',
    path: `${WIDGET_PREFIX}/agents/:agentId/conversations/:conversationId/stream`,
    operationId: 'streamWidgetConversation',
    scope: 'public',
    tag,
    summary: 'The messages of the conversation as server-sent events (`message`; `end` when it ends), after `after`',
    params: conversationParams,
    query: { type: 'object', additionalProperties: false, properties: { after: { type: 'string', pattern: '^\\d{1,19}$' } } },
    responses: { 200: { description: 'An event stream', contentTypes: ['text/event-stream'] }, 401: auth401 },
    handler: async (input) => {
      const { conversation } = await authorize(input);
      return new Reply(
        200,
        messageStream(feed, input.em, conversation.id, resumeFrom(input.query.after, input.headers['last-event-id']), forVisitor),
        {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'no-store',
          'X-Accel-Buffering': 'no',
        },
      );
    },
  });
  api.add<{ rating?: number | null; comment?: string | null }, unknown, ConversationParams>({
    method: 'post',
    path: `${WIDGET_PREFIX}/agents/:agentId/conversations/:conversationId/feedback`,
    operationId: 'sendWidgetFeedback',
    scope: 'public',
    tag,
    summary: "The visitor's feedback (a 1-5 rating and/or a comment); fires FEEDBACK_CAPTURED",
    params: conversationParams,
    body: FeedbackBodySchema,
    responses: { 200: { description: 'The conversation', schema: ConversationSchema }, 401: auth401 },
    handler: async (input) => {
      const { conversation } = await authorize(input);
      return conversationView(
        await recordFeedback(input.em, conversation, { rating: input.body.rating ?? null, comment: input.body.comment ?? null }),
      );
    },
  });
  api.add<unknown, unknown, ConversationParams>({
    method: 'post',
    path: `${WIDGET_PREFIX}/agents/:agentId/conversations/:conversationId/end`,
    operationId: 'endWidgetConversation',
    scope: 'public',
    tag,
    summary: 'Ends the conversation (fires CONVERSATION_ENDED once)',
    params: conversationParams,
    responses: { 200: { description: 'The conversation', schema: ConversationSchema }, 401: auth401 },
    handler: async (input) => {
      const { agent, conversation } = await authorize(input);
      return endConversation(input.em, temporal, agent, conversation.id);
    },
  });
}
