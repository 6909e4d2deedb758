/**
 * Entry points for events produced outside the Objects and Tables data plane: conversation events (ended, idle,
 * feedback, handed off) and third-party trigger deliveries. Each writes one outbox event in the caller's transaction; the
 * dispatcher starts the ACTIVE workflows whose TRIGGER nodes match it. Webhook calls and row events write theirs
 * where they happen (webhook-calls.ts, tables/row-events.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CONVERSATION_EVENTS } from '../../lib/events/event-match.js';
import { BadRequestError } from '../../lib/errors.js';
import { Account } from '../accounts/account.entity.js';
import { OutboxEvent } from './outbox-event.entity.js';
import type { TriggerSubscription } from './trigger-subscription.entity.js';
import { findProviderSubscription } from './trigger-subscriptions.js';

export interface ConversationEvent {
  type: 'CONVERSATION_ENDED' | 'CONVERSATION_IDLE' | 'FEEDBACK_CAPTURED' | 'CONVERSATION_HANDED_OFF';
  agentId: string;
  conversationId: string;
  /** Anything else the producer knows (feedback rating, transcript summary, …); it reaches `{trigger_payload}`. */
  details?: Record<string, unknown>;
}

/** Records a conversation event of an agent of the account; answers the event id. */
export async function recordConversationEvent(em: EntityManager, accountId: number, event: ConversationEvent): Promise<{ eventId: string }> {
  if (!CONVERSATION_EVENTS.includes(event.type)) throw new BadRequestError(`type must be one of ${CONVERSATION_EVENTS.join(', ')}`, 'type');
  return record(em, accountId, event.type, { ...event.details, agentId: event.agentId, conversationId: event.conversationId });
}

/**
 * Records a delivery of the third-party trigger provider for one subscription (a node's `connectedAccountTriggerId`).
 * The account is the one whose workflow holds that subscription, found through the index of trigger subscriptions;
 * an unknown subscription is refused.
 */
export async function recordExternalTriggerDelivery(
  em: EntityManager,
  connectedAccountTriggerId: string,
  data: unknown,
): Promise<{ eventId: string }> {
  const subscription = await findProviderSubscription(em, connectedAccountTriggerId);
  if (!subscription) throw new BadRequestError(`No EXTERNAL_TRIGGER node subscribes to ${connectedAccountTriggerId}`, 'connectedAccountTriggerId');
  return recordSubscriptionDelivery(em, subscription, data);
}

/**
 * The outbox event of a delivery for an indexed subscription. The dispatcher starts the ACTIVE workflows whose live
 * EXTERNAL_TRIGGER node holds the subscription; `{trigger_payload}` is this payload, the event under `data`.
 */
export async function recordSubscriptionDelivery(em: EntityManager, subscription: TriggerSubscription, data: unknown): Promise<{ eventId: string }> {
  return record(em, subscription.account.id, 'EXTERNAL_TRIGGER', {
    connectedAccountTriggerId: subscription.providerSubscriptionId,
    subscriptionId: subscription.id,
    data,
  });
}

async function record(em: EntityManager, accountId: number, type: string, payload: Record<string, unknown>): Promise<{ eventId: string }> {
  const event = em.create(OutboxEvent, { account: em.getReference(Account, accountId), type, payload });
  await em.flush();
  return { eventId: String(event.id) };
}
