/**
 * A person takes over a conversation (DESIGN.md, Handoff): `handoff` moves it to HANDED_OFF (as the
 * `handoff_to_human` system tool does), operators write to the visitor through `operator-messages` while it is, and
 * `resume` hands it back to the agent. USER keys only: these are a person's actions.
 */
import type { Client } from '@temporalio/client';
import { handOffConversation, resumeConversation, sendOperatorMessage } from '../../temporal/conversation-runtime.js';
import { findAgent } from '../../../db/agents/agents.service.js';
import type { RouteRegistry } from '../../route-registry.js';
import { ConversationSchema, MessageSchema, conversationParams, userMessageBody, type ConversationParams } from './conversations.routes.js';

const tag = 'Agent conversations';

export function handoffRoutes(api: RouteRegistry, temporal: Client): void {
  api.add<unknown, unknown, ConversationParams>({
    method: 'post',
    operationId: 'handOffConversation',
    path: '/agents/:agentId/conversations/:conversationId/handoff',
    scope: 'U',
    tag,
    summary:
      'Hands the conversation to a person (status HANDED_OFF; the visitor is told; the agent stops answering); one handed off already is answered as it is',
    params: conversationParams,
    responses: { 200: { description: 'The conversation', schema: ConversationSchema }, 409: { description: 'The conversation has ended' } },
    handler: async ({ auth, em, params }) =>
      handOffConversation(em, temporal, await findAgent(em, auth.account.id, params.agentId), params.conversationId),
  });
  api.add<unknown, unknown, ConversationParams>({
    method: 'post',
    operationId: 'resumeConversation',
    path: '/agents/:agentId/conversations/:conversationId/resume',
    scope: 'U',
    tag,
    summary: 'Hands a handed-off conversation back to the agent (status ACTIVE): the next user message is answered again',
    params: conversationParams,
    responses: {
      200: { description: 'The conversation', schema: ConversationSchema },
      409: { description: 'The conversation is not handed off, or has ended' },
    },
    handler: async ({ auth, em, params }) =>
      resumeConversation(em, temporal, await findAgent(em, auth.account.id, params.agentId), params.conversationId),
  });
  api.add<{ text: string; messageId?: string; name?: string | null }, unknown, ConversationParams>({
    method: 'post',
    operationId: 'sendOperatorMessage',
    path: '/agents/:agentId/conversations/:conversationId/operator-messages',
    scope: 'U',
    tag,
    status: 201,
    summary:
      "An operator's message to the visitor of a handed-off conversation: stored with author operator (the key's user and `name`), " +
      'delivered on the stream, the widget and the channel; a resent messageId answers the message already stored',
    params: conversationParams,
    body: userMessageBody(20000, {
      name: { type: ['string', 'null'], maxLength: 100, description: 'The name the visitor sees beside the message (default: none, the agent side)' },
    }),
    responses: {
      201: { description: 'The stored message', schema: MessageSchema },
      409: { description: 'The conversation is not handed off (the agent answers it), or has ended' },
    },
    handler: async ({ auth, em, params, body }) =>
      sendOperatorMessage(
        em,
        await findAgent(em, auth.account.id, params.agentId),
        params.conversationId,
        { userId: auth.user?.id ?? null, name: body.name?.trim() || null },
        { text: body.text, ...(body.messageId ? { messageId: body.messageId } : {}) },
      ),
  });
}
