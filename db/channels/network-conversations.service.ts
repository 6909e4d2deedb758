/**
 * Conversations with people on the messaging networks: a person's message goes to the one open conversation of the
 * agent that answers the number/page/account it was sent to (its channel on, the agent online), made when there is
 * none; a unique index keeps it one even when two messages of a person arrive at once.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../lib/errors.js';
import type { InboundMessageEvent } from '../../lib/channels/channel-contract.js';
import { Agent } from '../agents/agent.entity.js';
import { Conversation } from '../agents/conversation.entity.js';
import { Flow } from '../agents/flow.entity.js';
import { GraphSnapshot } from '../automations/graph-snapshot.entity.js';
import { channelSettings } from '../agents/conversations.service.js';
import { connectionsOf } from './network-accounts.service.js';

export type OpenedConversation =
  | { conversation: Conversation; agent: Agent; idleMinutes?: number; created: boolean }
  /** Why the message reaches no agent (none answers this account, its channel is off, it is offline). */
  | { ignored: string };

/** The open conversation of the person `event.userId` on the agent of the account the message was sent to. */
export async function openConversation(em: EntityManager, event: InboundMessageEvent): Promise<OpenedConversation> {
  const [connection] = (await connectionsOf(em, event.channel, [event.networkAccountId])).filter(
    (c) => c.connectionId === event.connectionId && c.accountId === event.accountId,
  );
  if (!connection) return { ignored: `${event.networkAccountId} is no longer connected` };
  if (!connection.agentId) return { ignored: `no agent answers ${event.channel} ${event.networkAccountId}` };
  const agent = await em.findOne(Agent, { id: connection.agentId, account: event.accountId, deletedAt: null });
  if (!agent) return { ignored: `agent ${connection.agentId} of ${event.networkAccountId} does not exist` };
  if (agent.isOffline) return { ignored: `agent "${agent.name}" is offline` };
  let settings: { idleMinutes?: number };
  try {
    settings = await channelSettings(em, agent, event.channel);
  } catch (error) {
    if (error instanceof AppError) return { ignored: error.message };
    throw error;
  }
  const where = {
    agent,
    channel: event.channel,
    networkAccountId: event.networkAccountId,
    networkUserId: event.userId,
    status: { $ne: 'ENDED' },
  } as const;
  const open = await em.findOne(Conversation, where);
  if (open) return { conversation: open, agent, created: false, ...settings };
  const inserted = await em.getKnex().raw(
    `insert into conversations (id, account_id, agent_id, channel, status, turns, message_count, credits_used, network_account_id, network_user_id, contact_name, started_at, last_message_at)
     values (?, ?, ?, ?, 'ACTIVE', 0, 0, 0, ?, ?, ?, now(), now())
     on conflict (agent_id, channel, network_account_id, network_user_id) where network_user_id is not null and status <> 'ENDED' do nothing
     returning id`,
    [randomUUID(), event.accountId, agent.id, event.channel, event.networkAccountId, event.userId, event.userName ?? null],
  );
  const conversation = await em.findOneOrFail(Conversation, where);
  return { conversation, agent, created: inserted.rows.length > 0, ...settings };
}

/** Whether the agent greets first: its default flow's START leads somewhere (the flow says something). */
export async function agentGreets(em: EntityManager, agentId: string): Promise<boolean> {
  const flow = await em.findOne(
    Flow,
    { agent: agentId, isDefault: true, deletedAt: null, liveSnapshotId: { $ne: null } },
    { fields: ['liveSnapshotId'] },
  );
  const snapshot = flow?.liveSnapshotId ? await em.findOne(GraphSnapshot, { id: flow.liveSnapshotId }) : null;
  const start = snapshot?.nodes.find((n) => n.type === 'START');
  return !!start && snapshot!.edges.some((e) => e.source === start.nodeId);
}
