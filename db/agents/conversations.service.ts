/**
 * Conversations of an agent as the database holds them: the row the API creates before the conversation workflow
 * starts, the transcript its activities append to (each message once, by its key), the list and detail of the
 * transcript endpoints, and feedback. Where a conversation stands between turns is its workflow's state, not here.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { conversationWorkflowId, type TranscriptMessage } from '../../lib/runtime/conversation-contract.js';
import type { Citation, MessageAuthor, MessageDelivery, MessageMetadata } from '../../lib/runtime/contract.js';
import { recordConversationEvent } from '../automations/events.service.js';
import { OUTBOX_PENDING } from '../automations/outbox-notifier.js';
import { CHANNEL_EVENTS } from '../../lib/channels/meta-protocol.js';
import { Conversation, type ConversationFeedback } from './conversation.entity.js';
import { ConversationMessage } from './conversation-message.entity.js';
import type { Agent } from './agent.entity.js';
import { channelOf, readConfig } from './agent-configs.service.js';
import { CONFIG_KIND, IDLE_MINUTES } from './agent-defaults.js';
import { UUID } from './agents.service.js';

export function messageView(m: ConversationMessage): TranscriptMessage {
  return {
    id: String(m.id),
    author: m.author,
    text: m.text,
    turn: m.turn,
    flowId: m.flowId ?? null,
    flowVersion: m.flowVersion ?? null,
    nodeId: m.nodeId ?? null,
    credits: m.credits,
    temporalRunId: m.temporalRunId ?? null,
    metadata: m.metadata ?? null,
    citations: m.citations ?? [],
    ...deliveryOf({ delivery_status: m.deliveryStatus, delivery_error: m.deliveryError, external_id: m.externalId }),
    createdAt: m.createdAt.toISOString(),
  };
}

/** `delivery` of a message on a messaging network; nothing for the others. */
function deliveryOf(row: Record<string, unknown>): { delivery?: MessageDelivery } {
  const [status, error, externalId] = [row.delivery_status, row.delivery_error, row.external_id] as (string | null | undefined)[];
  if (!status && !externalId) return {};
  return { delivery: { status: (status ?? null) as MessageDelivery['status'], error: error ?? null, externalId: externalId ?? null } };
}

export function conversationView(c: Conversation) {
  return {
    id: c.id,
    assistantId: c.agent.id,
    channel: c.channel,
    status: c.status,
    turns: c.turns,
    messageCount: c.messageCount,
    creditsUsed: c.creditsUsed,
    handoffs: c.handoffs,
    feedback: c.feedback ?? null,
    endReason: c.endReason ?? null,
    startedAt: c.startedAt.toISOString(),
    lastMessageAt: c.lastMessageAt.toISOString(),
    endedAt: c.endedAt?.toISOString() ?? null,
    temporalWorkflowId: conversationWorkflowId(c.id),
  };
}

/** The settings a new conversation takes from its channel: whether it is on, and the idle time. */
export async function channelSettings(em: EntityManager, agent: Agent, channel: string): Promise<{ idleMinutes?: number }> {
  const values = await readConfig(em, agent, CONFIG_KIND.channel(channelOf(channel)));
  if (values.enabled === false) throw new ConflictError(`The ${channel} channel of agent "${agent.name}" is turned off`);
  const idle = values.idleSettings as { idleMinutes?: number } | undefined;
  const minutes = Number(idle?.idleMinutes);
  return values.enableIdle === true && Number.isFinite(minutes)
    ? { idleMinutes: Math.min(IDLE_MINUTES.max, Math.max(IDLE_MINUTES.min, minutes)) }
    : {};
}

/** An identified widget visitor: their verified id, name and email. */
export interface Visitor {
  visitorId: string;
  contactName?: string | null;
  contactEmail?: string | null;
}

/** A new conversation row; an offline agent refuses it (409). */
export async function createConversation(em: EntityManager, agent: Agent, channel: string, visitor?: Visitor): Promise<Conversation> {
  if (agent.isOffline) throw new ConflictError(`Agent "${agent.name}" is offline: put it online (PUT /agents/{agentId}/deployment-status) first`);
  const conversation = em.create(Conversation, { id: randomUUID(), account: agent.account, agent, channel, ...visitor });
  await em.flush();
  return conversation;
}

export async function findConversation(em: EntityManager, agent: Agent, id: string): Promise<Conversation> {
  const found = UUID.test(id) ? await em.findOne(Conversation, { id, agent }) : null;
  if (!found) throw new NotFoundError(`Conversation ${id} not found`);
  return found;
}

/** A conversation's id and status, as a turn needs them. */
export interface ConversationStatusRow {
  id: string;
  status: Conversation['status'];
}

/**
 * Conversation `id` of agent `agentId` of account `accountId`, in one statement (a user message's turn reads it on
 * every message): 404 for an unknown or deleted agent, as `findAgent` answers, then for an unknown conversation.
 */
export async function findAgentConversation(em: EntityManager, accountId: number, agentId: string, id: string): Promise<ConversationStatusRow> {
  const rows = UUID.test(agentId)
    ? (
        await em.getKnex().raw(
          `select c.id, c.status from agents a left join conversations c on c.agent_id = a.id and c.id = ?
            where a.id = ? and a.account_id = ? and a.deleted_at is null`,
          [UUID.test(id) ? id.toLowerCase() : null, agentId.toLowerCase(), accountId],
        )
      ).rows
    : [];
  if (!rows.length) throw new NotFoundError(`Agent ${agentId} not found`);
  if (!rows[0].id) throw new NotFoundError(`Conversation ${id} not found`);
  return rows[0] as ConversationStatusRow;
}

export interface MessageInput {
  accountId: number;
  conversationId: string;
  /** Names the message by what produced it; a second append with the same key answers the first message. */
  key: string;
  /** `operator`: a person of the account, in a handed-off conversation. */
  author: MessageAuthor;
  text: string;
  turn: number;
  flowId?: number | null;
  flowVersion?: number | null;
  nodeId?: string | null;
  credits?: number;
  temporalRunId?: string | null;
  metadata?: MessageMetadata | null;
  /** The knowledge-base documents an agent's message is grounded in. */
  citations?: Citation[];
  /**
   * On a messaging network: the writer sends the message itself at once (a node of a turn), so its CHANNEL_DELIVERY
   * event is held back DELIVERY_HOLD_SECONDS, the safety net should that send not happen (db/channels/deliveries.service.ts).
   */
  holdDelivery?: boolean;
}

/** How long the CHANNEL_DELIVERY event of a message its writer sends at once waits before the outbox sends it. */
export const DELIVERY_HOLD_SECONDS = 30;

/**
 * Appends a message once: a repeated key (an activity run again) answers the message already there. The
 * conversation's counters move with the insert, in the same statement, so they never count a message twice. On a
 * messaging network (a conversation with a `network_user_id`), a message that is not the user's is also handed to
 * the network: it starts `pending` and its CHANNEL_DELIVERY outbox event is written by the same statement, so it is
 * sent once it is stored, and only then (worker/direct-starts.ts, `channelDelivery`). The statement says whether it
 * wrote that event (`outbox_pending`): a livechat message wakes no dispatcher.
 */
export async function appendMessage(em: EntityManager, input: MessageInput): Promise<TranscriptMessage> {
  const knex = em.getKnex();
  const inserted = await knex.raw(
    `with added as (
       insert into conversation_messages (account_id, conversation_id, key, author, text, turn, flow_id, flow_version, node_id, credits, temporal_run_id, metadata, citations, created_at, delivery_status)
       select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, now(),
         (select 'pending' from conversations c where c.id = ? and c.network_user_id is not null and ? <> 'user')
       on conflict (key) do nothing
       returning *
     ), delivery as (
       insert into outbox_events (account_id, type, payload, created_at, next_attempt_at)
       select account_id, '${CHANNEL_EVENTS.delivery}', json_build_object('accountId', account_id, 'conversationId', conversation_id, 'messageId', id::text), now(),
         case when ? then now() + make_interval(secs => ${DELIVERY_HOLD_SECONDS}) end
       from added where delivery_status = 'pending'
       returning 1
     ), counted as (
       update conversations set message_count = message_count + 1, credits_used = credits_used + (select credits from added),
         last_message_at = now(), turns = turns + (case when (select author from added) = 'user' then 1 else 0 end)
       where id = ? and exists (select 1 from added)
     )
     select *, exists (select 1 from delivery) as ${OUTBOX_PENDING} from added`,
    [
      input.accountId,
      input.conversationId,
      input.key,
      input.author,
      input.text,
      input.turn,
      input.flowId ?? null,
      input.flowVersion ?? null,
      input.nodeId ?? null,
      input.credits ?? 0,
      input.temporalRunId ?? null,
      input.metadata ? JSON.stringify(input.metadata) : null,
      input.citations?.length ? JSON.stringify(input.citations) : null,
      input.conversationId,
      input.author,
      !!input.holdDelivery,
      input.conversationId,
    ],
  );
  const row = (inserted.rows[0] as Record<string, unknown> | undefined) ?? (await knex('conversation_messages').where({ key: input.key }).first());
  return {
    id: String(row.id),
    author: row.author as MessageAuthor,
    text: row.text as string,
    turn: row.turn as number,
    flowId: (row.flow_id as number | null) ?? null,
    flowVersion: (row.flow_version as number | null) ?? null,
    nodeId: (row.node_id as string | null) ?? null,
    credits: Number(row.credits),
    temporalRunId: (row.temporal_run_id as string | null) ?? null,
    metadata: (row.metadata as TranscriptMessage['metadata']) ?? null,
    citations: (row.citations as Citation[] | null) ?? [],
    ...deliveryOf(row),
    createdAt: new Date(row.created_at as string).toISOString(),
  };
}

/** Messages of a conversation in order, after the message `afterId` when given. */
export async function listMessages(em: EntityManager, conversationId: string, afterId?: string): Promise<TranscriptMessage[]> {
  const found = await em.find(
    ConversationMessage,
    { conversation: conversationId, ...(afterId ? { id: { $gt: afterId } } : {}) },
    { orderBy: { id: 'asc' }, limit: 5000 },
  );
  return found.map(messageView);
}

/** The messages among `ids` of the conversation (a stream's messages whose delivery status moved), in order. */
export async function findMessages(em: EntityManager, conversationId: string, ids: string[]): Promise<TranscriptMessage[]> {
  const found = await em.find(ConversationMessage, { conversation: conversationId, id: { $in: ids } }, { orderBy: { id: 'asc' } });
  return found.map(messageView);
}

export interface ConversationFilter {
  limit: number;
  cursor?: string;
  startDate?: string | null;
  endDate?: string | null;
  channel?: string;
  status?: string;
}

const encodeCursor = (c: Conversation) => Buffer.from(`c:${c.startedAt.toISOString()}|${c.id}`).toString('base64url');

function decodeCursor(cursor: string): { startedAt: Date; id: string } {
  const match = /^c:([^|]+)\|([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString());
  const startedAt = match ? new Date(match[1]!) : new Date(NaN);
  if (!match || Number.isNaN(startedAt.getTime()))
    throw new BadRequestError('Invalid cursor', [{ code: 'invalid', path: 'query.cursor', message: 'is not a nextCursor of this list' }]);
  return { startedAt, id: match[2]! };
}

/** Conversations of the agent, newest first, filtered by start date range, channel and status; keyset paginated. */
export async function listConversations(em: EntityManager, agent: Agent, filter: ConversationFilter) {
  const after = filter.cursor ? decodeCursor(filter.cursor) : undefined;
  const range = {
    ...(filter.startDate ? { $gte: new Date(`${filter.startDate.slice(0, 10)}T00:00:00Z`) } : {}),
    ...(filter.endDate ? { $lt: new Date(new Date(`${filter.endDate.slice(0, 10)}T00:00:00Z`).getTime() + 86_400_000) } : {}),
  };
  const found = await em.find(
    Conversation,
    {
      agent,
      ...(filter.channel ? { channel: filter.channel } : {}),
      ...(filter.status ? { status: filter.status as Conversation['status'] } : {}),
      ...(Object.keys(range).length ? { startedAt: range } : {}),
      ...(after ? { $or: [{ startedAt: { $lt: after.startedAt } }, { startedAt: after.startedAt, id: { $lt: after.id } }] } : {}),
    },
    { orderBy: [{ startedAt: 'desc' }, { id: 'desc' }], limit: filter.limit + 1 },
  );
  const items = found.slice(0, filter.limit);
  return { agentry: items.map(conversationView), nextCursor: found.length > filter.limit ? encodeCursor(items.at(-1)!) : null };
}

/** Records the user's feedback and fires FEEDBACK_CAPTURED, in one transaction. */
export async function recordFeedback(em: EntityManager, conversation: Conversation, feedback: ConversationFeedback) {
  return em.transactional((tx) => saveFeedback(tx, conversation.id, feedback));
}

/**
 * The feedback and its FEEDBACK_CAPTURED event, written in the caller's transaction (the `collect_feedback` system
 * tool records it once per tool call this way).
 */
export async function saveFeedback(tx: EntityManager, conversationId: string, feedback: ConversationFeedback): Promise<Conversation> {
  const row = await tx.findOneOrFail(Conversation, { id: conversationId }, { populate: ['agent'] });
  row.feedback = feedback;
  await recordConversationEvent(tx, row.account.id, {
    type: 'FEEDBACK_CAPTURED',
    agentId: row.agent.id,
    conversationId: row.id,
    details: { rating: feedback.rating, comment: feedback.comment, channel: row.channel },
  });
  await tx.flush();
  return row;
}
