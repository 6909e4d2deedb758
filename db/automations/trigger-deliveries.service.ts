/**
 * `POST /trigger-deliveries/{subscriptionId}`: a signed delivery of the trigger provider. The signature is checked
 * first (it needs no database: the secret is derived from the id), then the subscription is looked up in the index,
 * then the body is read as JSON and written to the outbox. Nothing is recorded for a refused delivery.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../../lib/errors.js';
import { deliveryRefusal, type TriggerDeliveries } from '../../lib/triggers/delivery-signature.js';
import { recordSubscriptionDelivery } from './events.service.js';
import { findSubscription } from './trigger-subscriptions.js';

export interface SignedDelivery {
  subscriptionId: string;
  timestamp?: string;
  signature?: string;
  /** The body exactly as received: the signature covers these bytes. */
  body: Buffer;
}

export const DELIVERIES_NOT_CONFIGURED = 'Trigger deliveries are not configured on this server (it has no TRIGGER_SIGNING_KEY)';

export async function acceptTriggerDelivery(
  em: EntityManager,
  deliveries: TriggerDeliveries | undefined,
  delivery: SignedDelivery,
  nowMs: number = Date.now(),
): Promise<{ eventId: string }> {
  if (!deliveries) throw new NotFoundError(DELIVERIES_NOT_CONFIGURED);
  const { subscriptionId, timestamp, signature, body } = delivery;
  const refusal = deliveryRefusal(deliveries.secret(subscriptionId), { timestamp, signature }, body, Math.floor(nowMs / 1000));
  if (refusal) throw new UnauthorizedError(refusal);
  const subscription = await findSubscription(em, subscriptionId);
  if (!subscription) throw new NotFoundError(`Trigger subscription ${subscriptionId} not found: its node or workflow was deleted`);
  const text = body.toString('utf8');
  if (!text.trim()) throw new BadRequestError('The body is empty: send the event as JSON', 'body');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`The body is not JSON: ${(error as Error).message}`, 'body');
  }
  return recordSubscriptionDelivery(em, subscription, data);
}
