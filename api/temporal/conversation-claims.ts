/**
 * Claims as the API drives them (issue 46): taking over a conversation the agent still answers hands it off first
 * (the conversation workflow's `handoff` update, as `POST .../handoff`), then gives the claim to the caller; an
 * operator's message claims a conversation nobody holds. The claim itself is db/agents/inbox-claims.service.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Agent } from '../../db/agents/agent.entity.js';
import { findConversation } from '../../db/agents/conversations.service.js';
import { claimConversation } from '../../db/agents/inbox-claims.service.js';
import { readInboxConversation } from '../../db/agents/inbox.service.js';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { handOffConversation } from './conversation-runtime.js';

/**
 * The caller takes the conversation: handed off first when the agent has it; then claimed (another user's claim
 * only with `takeOver`). Answers the conversation as the caller's inbox shows it.
 */
export async function takeConversation(em: EntityManager, temporal: Client, agent: Agent, conversationId: string, userId: number, takeOver: boolean) {
  const conversation = await findConversation(em, agent, conversationId);
  if (conversation.status === 'ENDED') throw new ConflictError(`Conversation ${conversationId} has ended`);
  if (conversation.status === 'ACTIVE') await handOffConversation(em, temporal, agent, conversation.id);
  await claimConversation(em.fork(), conversation.id, userId, takeOver);
  const taken = await readInboxConversation(em.fork(), agent.account.id, userId, conversation.id);
  if (!taken) throw new NotFoundError(`Conversation ${conversationId} not found`);
  return taken;
}
