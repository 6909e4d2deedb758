/**
 * The conversation runtime as the API drives it: a conversation starts as a row and its workflow
 * (`conversation:<id>`, on the turns task queue) in one update-with-start that also runs the greeting; each user
 * message is an update answered with the agent's messages; `end` closes it; `handoff` and `resume` move it to a
 * person and back (operators' messages go straight to the transcript). The workflow is driven through
 * integrations/temporal/conversations.ts; Temporal's answers are mapped to the API's errors here, so routes stay thin.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import {
  appendMessage,
  channelSettings,
  conversationView,
  createConversation,
  findConversation,
  type ConversationStatusRow,
  type Visitor,
} from '../../db/agents/conversations.service.js';
import { Conversation } from '../../db/agents/conversation.entity.js';
import { claimConversation } from '../../db/agents/inbox-claims.service.js';
import type { Agent } from '../../db/agents/agent.entity.js';
import { AppError, ConflictError, ServiceUnavailableError } from '../../lib/errors.js';
import { conversationWorkflowId, type ConversationInput, type UserMessage } from '../../lib/runtime/conversation-contract.js';
import {
  beginConversation,
  changeConversationHands,
  endConversationWorkflow,
  runConversationTurn,
  terminateConversation,
} from '../../integrations/temporal/conversations.js';

/** A refused update (the conversation ended meanwhile) is a 409; Temporal being away is a 503. */
function mapFailure(error: unknown, conversationId: string): never {
  if (error instanceof AppError) throw error;
  if (error instanceof WorkflowUpdateFailedError) {
    throw new ConflictError(`Conversation ${conversationId} cannot take this: ${error.cause?.message ?? error.message}`);
  }
  const name = (error as Error)?.name;
  if (name === 'WorkflowNotFoundError' || /already completed|not found/i.test((error as Error)?.message ?? '')) {
    throw new ConflictError(`Conversation ${conversationId} has ended`);
  }
  throw new ServiceUnavailableError(`The conversation runtime did not answer: ${(error as Error)?.message ?? String(error)}`);
}

/**
 * Starts a conversation on `channel` and runs its greeting turn; answers the conversation and the greeting. A widget's
 * identified visitor is on the row before the greeting runs, so it already knows their name.
 */
export async function startConversation(em: EntityManager, temporal: Client, taskQueue: string, agent: Agent, channel: string, visitor?: Visitor) {
  const settings = await channelSettings(em, agent, channel);
  const conversation = await createConversation(em, agent, channel, visitor);
  const input: ConversationInput = { accountId: agent.account.id, agentId: agent.id, conversationId: conversation.id, channel, ...settings };
  try {
    const greeting = await beginConversation(temporal, taskQueue, input);
    await em.refresh(conversation);
    return { ...conversationView(conversation), messages: greeting.messages, temporal: greeting.temporal };
  } catch (error) {
    // Nothing half-made: neither the row nor a workflow that started without answering is left behind.
    await terminateConversation(temporal, conversation.id, 'the conversation could not start');
    await em.nativeDelete(Conversation, { id: conversation.id });
    mapFailure(error, conversation.id);
  }
}

/** Runs one turn for the user's message; answers the agent's messages of that turn. */
export async function sendUserMessage(temporal: Client, conversation: ConversationStatusRow, message: UserMessage) {
  const conversationId = conversation.id;
  if (conversation.status === 'ENDED') throw new ConflictError(`Conversation ${conversationId} has ended`);
  try {
    return await runConversationTurn(temporal, conversationId, message);
  } catch (error) {
    mapFailure(error, conversation.id);
  }
}

/** Ends the conversation (CONVERSATION_ENDED fires once); ending an ended one answers it as it is. */
export async function endConversation(em: EntityManager, temporal: Client, agent: Agent, conversationId: string) {
  const conversation = await findConversation(em, agent, conversationId);
  if (conversation.status !== 'ENDED') {
    try {
      await endConversationWorkflow(temporal, conversation.id, 'USER');
    } catch (error) {
      mapFailure(error, conversation.id);
    }
    await em.refresh(conversation);
  }
  return conversationView(conversation);
}

/** Runs one of the conversation workflow's updates that answer its state (`handoff`, `resume`); answers the row after it. */
async function changeHands(em: EntityManager, temporal: Client, agent: Agent, conversationId: string, update: 'handoff' | 'resume') {
  const conversation = await findConversation(em, agent, conversationId);
  if (conversation.status === 'ENDED') throw new ConflictError(`Conversation ${conversationId} has ended`);
  try {
    await changeConversationHands(temporal, conversation.id, update);
  } catch (error) {
    mapFailure(error, conversation.id);
  }
  await em.refresh(conversation);
  return conversationView(conversation);
}

/** Hands the conversation to a person (status HANDED_OFF, the visitor told); one already handed off is answered as it is. */
export const handOffConversation = (em: EntityManager, temporal: Client, agent: Agent, conversationId: string) =>
  changeHands(em, temporal, agent, conversationId, 'handoff');

/** Hands the conversation back to the agent (status ACTIVE); 409 when it is not handed off. */
export const resumeConversation = (em: EntityManager, temporal: Client, agent: Agent, conversationId: string) =>
  changeHands(em, temporal, agent, conversationId, 'resume');

/** Who writes an operator message: the USER key's user, and the name the visitor sees (none: the agent's side, unnamed). */
export interface Operator {
  userId: number | null;
  name: string | null;
}

/**
 * An operator's message to the visitor of a handed-off conversation, into the transcript (the stream, the widget
 * and the channel deliver it from there). A resent `messageId` answers the message already stored. A user writes
 * only while nobody else holds the conversation's claim (409 `conversation_claimed`), and one nobody holds becomes
 * theirs.
 */
export async function sendOperatorMessage(
  em: EntityManager,
  agent: Agent,
  conversationId: string,
  operator: Operator,
  message: { text: string; messageId?: string },
) {
  const conversation = await findConversation(em, agent, conversationId);
  if (conversation.status !== 'HANDED_OFF')
    throw new ConflictError(
      `Conversation ${conversationId} is ${conversation.status === 'ENDED' ? 'ended' : 'not handed off to a person (the agent answers it)'}: ` +
        'operators write only while it is HANDED_OFF (POST .../handoff takes it over)',
    );
  if (operator.userId !== null) await claimConversation(em.fork(), conversation.id, operator.userId, false);
  return appendMessage(em, {
    accountId: agent.account.id,
    conversationId: conversation.id,
    key: `${conversationWorkflowId(conversation.id)}/operator-${message.messageId ?? randomUUID()}`,
    author: 'operator',
    text: message.text,
    turn: conversation.turns,
    metadata: { operator },
  });
}
