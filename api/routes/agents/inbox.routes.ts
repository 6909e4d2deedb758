/**
 * The operator inbox (issue 46), for people of the account (USER scope: a USER key, or the console's session, acts
 * as its user): the account's conversations across agents, one conversation as the console's header shows it, its
 * claim (take it, take it over, release it), the caller's presence and typing, their read mark, and the live stream of
 * all of it.
 */
import type { Client } from '@temporalio/client';
import { findAgent } from '../../../db/agents/agents.service.js';
import { AGENT_CHANNELS } from '../../../db/agents/agent-defaults.js';
import { findConversation } from '../../../db/agents/conversations.service.js';
import { listInboxConversations, readInboxConversation, PRESENCE_SECONDS, type InboxFilter } from '../../../db/agents/inbox.service.js';
import { markAbsent, markPresent, markRead, releaseConversation } from '../../../db/agents/inbox-claims.service.js';
import type { KeyIdentity } from '../../../db/accounts/api-keys.service.js';
import { ForbiddenError, NotFoundError } from '../../../lib/errors.js';
import { takeConversation } from '../../temporal/conversation-claims.js';
import { Reply, type RouteRegistry } from '../../route-registry.js';
import type { ConversationFeed } from '../../conversation-feed.js';
import { inboxStream } from './inbox-stream.js';
import { pageSchema, strictObject } from '../../schemas/common.schema.js';
import { conversationParams, type ConversationParams } from './conversations.routes.js';

const tag = 'Inbox';
const nullableString = { type: ['string', 'null'] };

/** A conversation as the operator console lists it. */
export const InboxConversationSchema = strictObject(
  {
    id: { type: 'string' },
    agentId: { type: 'string' },
    agentName: { type: 'string' },
    channel: { type: 'string' },
    status: { enum: ['ACTIVE', 'HANDED_OFF', 'ENDED'] },
    contact: strictObject(
      {
        name: nullableString,
        email: nullableString,
        externalId: { ...nullableString, description: "The visitor's verified id, or the person's id on the network" },
      },
      'Who the conversation is with, as far as known',
    ),
    startedAt: { type: 'string' },
    lastMessageAt: { type: 'string' },
    lastMessage: {
      oneOf: [
        strictObject({ id: { type: 'string' }, author: { type: 'string' }, text: { type: 'string' }, createdAt: { type: 'string' } }),
        { type: 'null' },
      ],
    },
    waitingSince: { ...nullableString, description: 'When it was last handed off; null unless HANDED_OFF' },
    handoffs: { type: 'integer' },
    claim: {
      oneOf: [
        strictObject(
          { userId: { type: 'integer' }, name: { type: 'string' }, email: { type: 'string' }, claimedAt: { type: 'string' } },
          'The user answering it',
        ),
        { type: 'null' },
      ],
    },
    unread: { type: 'integer', description: "The visitor's messages after the caller's read mark (all of them without one)" },
    viewers: {
      type: 'array',
      description: `Users who have it open now (a presence renewed within ${PRESENCE_SECONDS} s), the caller included`,
      items: strictObject({ userId: { type: 'integer' }, name: { type: 'string' }, typing: { type: 'boolean' } }),
    },
  },
  'A conversation as the operator console shows it',
);

/** The caller's user: USER keys (and sessions) act as one. */
export function callerId(auth: KeyIdentity): number {
  if (!auth.user) throw new ForbiddenError('This endpoint acts as a user of the account: use a USER key of that user');
  return auth.user.id;
}

const CLAIMED = { description: 'Another user holds the claim (`conversation_claimed`, naming them), or the conversation has ended' };

export function inboxRoutes(api: RouteRegistry, temporal: Client, feed: ConversationFeed): void {
  api.add({
    method: 'get',
    operationId: 'streamInbox',
    path: '/inbox/stream',
    scope: 'U',
    tag,
    summary:
      "The account's inbox as server-sent events: `conversation` with the InboxConversation (as the caller sees it) whenever one gets a message, " +
      'changes status, is claimed or released, or its viewers or typing change; `resync` (data {}) when the client should reload the list ' +
      '(on connecting, and after the server lost its notifications for a while); keep-alive comments',
    responses: { 200: { description: 'An event stream', contentTypes: ['text/event-stream'] } },
    handler: ({ auth, em }) =>
      new Reply(200, inboxStream(feed, em, auth.account.id, callerId(auth)), {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
      }),
  });
  api.add<unknown, InboxFilter, unknown>({
    method: 'get',
    operationId: 'listInboxConversations',
    path: '/conversations',
    scope: 'U',
    tag,
    summary:
      "The account's conversations across agents, newest message first (with waiting=true: the handed-off ones, newest wait first); filters: status, channel, agent, text",
    query: {
      type: 'object',
      additionalProperties: false,
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 500, default: 50 },
        cursor: { type: 'string', maxLength: 200 },
        waiting: { type: 'boolean', description: 'true: HANDED_OFF only, newest wait (waitingSince) first' },
        status: { enum: ['ACTIVE', 'HANDED_OFF', 'ENDED'] },
        channel: { enum: [...AGENT_CHANNELS] },
        agentId: { type: 'string', format: 'uuid', description: 'Conversations of this agent only' },
        q: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: "Text in the messages, or in the contact's name, email or external id (any case)",
        },
      },
    },
    responses: { 200: { description: '{ agentry: [InboxConversation], nextCursor }', schema: pageSchema(InboxConversationSchema) } },
    handler: ({ auth, em, query }) => listInboxConversations(em, auth.account.id, callerId(auth), query),
  });
  api.add<unknown, unknown, ConversationParams>({
    method: 'get',
    operationId: 'getInboxConversation',
    path: '/agents/:agentId/conversations/:conversationId/inbox',
    scope: 'U',
    tag,
    summary: 'The conversation as the operator console shows it: contact, last message, wait, claim, unread count, viewers',
    params: conversationParams,
    responses: { 200: { description: 'The conversation', schema: InboxConversationSchema }, 404: { description: 'No such conversation' } },
    handler: async ({ auth, em, params }) => {
      const conversation = await findConversation(em, await findAgent(em, auth.account.id, params.agentId), params.conversationId);
      const found = await readInboxConversation(em, auth.account.id, callerId(auth), conversation.id);
      if (!found) throw new NotFoundError(`Conversation ${params.conversationId} not found`);
      return found;
    },
  });
  api.add<{ takeOver?: boolean }, unknown, ConversationParams>({
    method: 'post',
    operationId: 'claimConversation',
    path: '/agents/:agentId/conversations/:conversationId/claim',
    scope: 'U',
    tag,
    status: 200,
    summary:
      "The caller answers the conversation (its claim): one the agent answers is handed off first; another user's claim is taken over only with takeOver",
    params: conversationParams,
    body: {
      type: 'object',
      additionalProperties: false,
      properties: {
        takeOver: { type: 'boolean', description: 'true: take it from the user who holds it (default: refused while another holds it)' },
      },
    },
    responses: { 200: { description: 'The conversation, claimed by the caller', schema: InboxConversationSchema }, 409: CLAIMED },
    handler: async ({ auth, em, params, body }) =>
      takeConversation(
        em,
        temporal,
        await findAgent(em, auth.account.id, params.agentId),
        params.conversationId,
        callerId(auth),
        body.takeOver === true,
      ),
  });
  api.add<unknown, unknown, ConversationParams>({
    method: 'delete',
    operationId: 'releaseConversation',
    path: '/agents/:agentId/conversations/:conversationId/claim',
    scope: 'U',
    tag,
    status: 204,
    summary: "Releases the caller's claim (it stays HANDED_OFF, waiting for someone); one nobody holds is left as it is",
    params: conversationParams,
    responses: { 204: { description: 'Released' }, 409: { description: 'Another user holds the claim (`conversation_claimed`)' } },
    handler: async ({ auth, em, params }) => {
      const conversation = await findConversation(em, await findAgent(em, auth.account.id, params.agentId), params.conversationId);
      await releaseConversation(em, conversation.id, callerId(auth));
    },
  });
  api.add<{ typing: boolean }, unknown, ConversationParams>({
    method: 'put',
    operationId: 'updateConversationPresence',
    path: '/agents/:agentId/conversations/:conversationId/presence',
    scope: 'U',
    tag,
    status: 204,
    summary: `The caller has the conversation open, typing or not: a viewer for ${PRESENCE_SECONDS} s (the console renews it every 10 s, and at once when typing starts or stops)`,
    params: conversationParams,
    body: { type: 'object', required: ['typing'], additionalProperties: false, properties: { typing: { type: 'boolean' } } },
    responses: { 204: { description: 'Recorded' } },
    handler: async ({ auth, em, params, body }) => {
      const conversation = await findConversation(em, await findAgent(em, auth.account.id, params.agentId), params.conversationId);
      await markPresent(em, auth.account.id, conversation.id, callerId(auth), body.typing);
    },
  });
  api.add<unknown, unknown, ConversationParams>({
    method: 'delete',
    operationId: 'deleteConversationPresence',
    path: '/agents/:agentId/conversations/:conversationId/presence',
    scope: 'U',
    tag,
    status: 204,
    summary: 'The caller closed the conversation: no longer among its viewers',
    params: conversationParams,
    responses: { 204: { description: 'Removed' } },
    handler: async ({ auth, em, params }) => {
      const conversation = await findConversation(em, await findAgent(em, auth.account.id, params.agentId), params.conversationId);
      await markAbsent(em, conversation.id, callerId(auth));
    },
  });
  api.add<{ messageId: string }, unknown, ConversationParams>({
    method: 'put',
    operationId: 'updateConversationReadMark',
    path: '/agents/:agentId/conversations/:conversationId/read',
    scope: 'U',
    tag,
    status: 204,
    summary: 'The caller has read the conversation up to this message (its unread count starts after it); the mark never moves backwards',
    params: conversationParams,
    body: {
      type: 'object',
      required: ['messageId'],
      additionalProperties: false,
      properties: { messageId: { type: 'string', pattern: '^\\d{1,18}$', description: 'A message of the conversation' } },
    },
    responses: { 204: { description: 'Recorded' } },
    handler: async ({ auth, em, params, body }) => {
      const conversation = await findConversation(em, await findAgent(em, auth.account.id, params.agentId), params.conversationId);
      await markRead(em, auth.account.id, conversation.id, callerId(auth), body.messageId);
    },
  });
}
