/**
 * Agent messages on their way to a person on a messaging network: the ones of a conversation still `pending` (in
 * the order they were written), what each is sent with, and where each stands (sent with the network's id, failed
 * with why), then the statuses the network reports (delivered, read, failed), which only move forward.
 */
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { CHANNEL_EVENTS, isMetaChannel, type MetaChannel } from '../../lib/channels/meta-protocol.js';
import type { InboundStatusEvent } from '../../lib/channels/channel-contract.js';

export interface PendingMessage {
  id: string;
  accountId: number;
  text: string;
  channel: MetaChannel;
  networkAccountId: string;
  networkUserId: string;
}

/** The conversation's agent messages still waiting to be sent, oldest first. */
export async function pendingMessages(em: EntityManager, conversationId: string): Promise<PendingMessage[]> {
  const result = await em.getKnex().raw(
    `select m.id, m.account_id, m.text, c.channel, c.network_account_id, c.network_user_id
     from conversation_messages m join conversations c on c.id = m.conversation_id
     where m.conversation_id = ? and m.delivery_status = 'pending' order by m.id`,
    [conversationId],
  );
  return (result.rows as Record<string, any>[])
    .filter((r) => isMetaChannel(r.channel) && r.network_user_id)
    .map((r) => ({
      id: String(r.id),
      accountId: r.account_id,
      text: r.text,
      channel: r.channel,
      networkAccountId: r.network_account_id,
      networkUserId: r.network_user_id,
    }));
}

/** Whether the message is still waiting to be sent. */
export async function stillPending(knex: Knex, messageId: string): Promise<boolean> {
  return (await knex.raw(`select 1 from conversation_messages where id = ? and delivery_status = 'pending'`, [messageId])).rows.length > 0;
}

/** Records a message as sent, with the network's id (only a pending one: a status reported since is kept). */
export async function markSent(knex: Knex, messageId: string, externalId: string): Promise<void> {
  await knex.raw(
    `update conversation_messages set delivery_status = 'sent', external_id = ?, delivery_error = null where id = ? and delivery_status = 'pending'`,
    [externalId, messageId],
  );
}

export async function markFailed(knex: Knex, messageId: string, error: string): Promise<void> {
  await knex.raw(`update conversation_messages set delivery_status = 'failed', delivery_error = ? where id = ? and delivery_status = 'pending'`, [
    error.slice(0, 2000),
    messageId,
  ]);
}

/** The order statuses move in; `failed` replaces only `pending` or `sent`. */
const RANK = `case %s when 'pending' then 0 when 'sent' then 1 when 'delivered' then 2 when 'read' then 3 else 4 end`;
const rank = (column: string) => RANK.replace('%s', column);

/**
 * Records a status the network reported; answers how many of its messages were found (a status can arrive before
 * the send's answer was recorded: the caller tries again). A status with a watermark (Messenger) covers every message
 * of the person's conversations sent up to it.
 */
export async function recordStatus(em: EntityManager, event: InboundStatusEvent): Promise<{ found: number; expected: number }> {
  const knex = em.getKnex();
  const moves =
    event.status === 'failed'
      ? `m.delivery_status in ('pending', 'sent')`
      : `${rank('m.delivery_status')} < ${rank('?::text')} and m.delivery_status <> 'failed'`;
  const moveArgs = event.status === 'failed' ? [] : [event.status];
  if (event.messageIds.length) {
    const result = await knex.raw(
      `with found as (select m.id, m.delivery_status from conversation_messages m where m.external_id = any(?::text[]) and m.account_id = ?),
       moved as (update conversation_messages m set delivery_status = ?, delivery_error = ? from found f where m.id = f.id and ${moves} returning 1)
       select (select count(*) from found)::int as found`,
      [event.messageIds, event.accountId, event.status, event.error ?? null, ...moveArgs],
    );
    return { found: result.rows[0].found, expected: event.messageIds.length };
  }
  if (event.watermark === undefined || !event.userId) return { found: 0, expected: 0 };
  await knex.raw(
    `update conversation_messages m set delivery_status = ? from conversations c
     where c.id = m.conversation_id and c.account_id = ? and c.channel = ? and c.network_account_id = ? and c.network_user_id = ?
       and m.external_id is not null and m.created_at <= to_timestamp(? / 1000.0) and ${moves}`,
    [event.status, event.accountId, event.channel, event.networkAccountId, event.userId, event.watermark, ...moveArgs],
  );
  return { found: 0, expected: 0 };
}

/**
 * After the writer of a conversation's messages tried to send them itself: the CHANNEL_DELIVERY events of those it
 * sent (or failed for good) are dispatched, and the hold of the conversation's other events is lifted, so the
 * outbox's `channelDelivery` sends what is still pending without waiting out the hold.
 */
export async function settleHeldDeliveries(em: EntityManager, conversationId: string, doneIds: string[]): Promise<void> {
  await em.getKnex().raw(
    `update outbox_events set
       dispatched_at = case when payload->>'messageId' = any(?::text[]) then now() end,
       next_attempt_at = case when payload->>'messageId' = any(?::text[]) then next_attempt_at end
     where dispatched_at is null and type = ? and payload->>'conversationId' = ? and (next_attempt_at > now() or payload->>'messageId' = any(?::text[]))`,
    [doneIds, doneIds, CHANNEL_EVENTS.delivery, conversationId, doneIds],
  );
}
