/**
 * The contract of the messaging networks' workflows, shared by the webhook (which writes the outbox events), the
 * dispatcher (which starts the workflows), the workflows and their activities. Types and pure functions only.
 */
import type { InboundMessage, InboundStatus, MetaChannel } from './meta-protocol.js';

/** A person's message, as its outbox event and `channelInbound` carry it. */
export interface InboundMessageEvent extends InboundMessage {
  accountId: number;
  channel: MetaChannel;
  /** The connected number's or social account's row id (messaging_numbers / social_accounts). */
  connectionId: number;
}

/** A status of agent messages, as its outbox event and `channelStatus` carry it. */
export interface InboundStatusEvent extends InboundStatus {
  accountId: number;
  channel: MetaChannel;
}

/** An agent's message to send (`CHANNEL_DELIVERY`, written with the message by `appendMessage`). */
export interface DeliveryEvent {
  accountId: number;
  conversationId: string;
  messageId: string;
}

/** One workflow per person's message: a redelivered webhook (or outbox event) starts nothing twice. */
export const inboundWorkflowId = (e: Pick<InboundMessageEvent, 'channel' | 'connectionId' | 'messageId'>) =>
  `channel-in:${e.channel}:${e.connectionId}:${e.messageId}`;

/** The key a person's message is accepted once under (db/node-effects/), the same as its workflow id. */
export const inboundKey = inboundWorkflowId;

/** A status is recorded once per message(s), status and account. */
export const statusKey = (e: InboundStatusEvent & { connectionId: number }) =>
  `channel-status:${e.channel}:${e.connectionId}:${e.status}:${e.messageIds.length ? e.messageIds.join(',') : `${e.userId}@${e.watermark}`}`;

/** One delivery workflow per conversation sends its agent messages one at a time, in the order they were written. */
export const deliveryWorkflowId = (conversationId: string) => `channel-out:${conversationId}`;

/** The signal that tells a conversation's delivery workflow that a message waits. */
export const DELIVERY_SIGNAL = 'deliver';

/** What sending one message came to. */
export type SendOutcome = { status: 'sent'; externalId: string } | { status: 'failed'; error: string } | { status: 'skipped' };

/** The workflow a person's message starts: `channelInbound` on the turns queue, once per message. */
export const inboundStart = (event: InboundMessageEvent) => ({ workflowType: 'channelInbound', workflowId: inboundWorkflowId(event), args: [event] });

/** The signal-with-start that hands a conversation's pending agent messages to its delivery workflow. */
export const deliveryStart = (event: Omit<DeliveryEvent, 'messageId'> & { messageId?: string }) => ({
  workflowType: 'channelDelivery',
  workflowId: deliveryWorkflowId(event.conversationId),
  args: [{ accountId: event.accountId, conversationId: event.conversationId }],
  signal: { name: DELIVERY_SIGNAL, args: [event.messageId ? { messageId: event.messageId } : {}] },
});
