/**
 * `POST /trigger-deliveries/{subscriptionId}`: a signed delivery of the trigger provider. The signature is checked
 * first (it needs no database: the secret is derived from the id), then the subscription is looked up in the index,
 * then the body is read as JSON and written to the outbox. Nothing is recorded for a refused delivery. The same
 * signed delivery sent again while its timestamp is still accepted answers the first event (receipts by signature),
 * so a provider's retry or a replay inside the window starts nothing twice. An `Idempotency-Key` (per subscription,
 * 24 hours, over the raw body bytes) does the same for retries signed anew (db/automations/idempotency-keys.ts).
 */
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { query, sqlOf } from '../tables/table-lookups.js';
import { BadRequestError, NotFoundError, UnauthorizedError } from '../../lib/errors.js';
import { bodyDigest } from '../../lib/idempotency.js';
import { deliveryRefusal, MAX_DELIVERY_AGE_SECONDS, type TriggerDeliveries } from '../../lib/triggers/delivery-signature.js';
import { recordSubscriptionDelivery } from './events.service.js';
import { oncePerKey, type IdempotentAnswer } from './idempotency-keys.js';
import type { TriggerSubscription } from './trigger-subscription.entity.js';
import { findSubscription } from './trigger-subscriptions.js';

export interface SignedDelivery {
  subscriptionId: string;
  timestamp?: string;
  signature?: string;
  /** The body exactly as received: the signature covers these bytes. */
  body: Buffer;
  /** The `Idempotency-Key` header, when sent. */
  idempotencyKey?: string;
}

/** The status of an accepted delivery, stored with its idempotency key so a replay answers it again. */
const ACCEPTED = 202;

export const DELIVERIES_NOT_CONFIGURED = 'Trigger deliveries are not configured on this server (it has no TRIGGER_SIGNING_KEY)';

export async function acceptTriggerDelivery(
  em: EntityManager,
  deliveries: TriggerDeliveries | undefined,
  delivery: SignedDelivery,
  nowMs: number = Date.now(),
): Promise<IdempotentAnswer<{ eventId: string }>> {
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
  return em.transactional(async (tx) => {
    const record = () => recordOnce(tx, subscription, signature!.trim(), data);
    if (delivery.idempotencyKey === undefined) return { status: ACCEPTED, body: await record(), replayed: false };
    const call = { scope: `subscription:${subscriptionId}`, key: delivery.idempotencyKey, requestHash: bodyDigest(body) };
    return oncePerKey(tx, call, ACCEPTED, record);
  });
}

/** Records the delivery unless its signature was seen: then answers the first event (call inside a transaction). */
async function recordOnce(tx: EntityManager, subscription: TriggerSubscription, signature: string, data: unknown): Promise<{ eventId: string }> {
  // A concurrent transaction holding the same signature makes this insert wait for it, then skip.
  const [fresh] = await query(
    sqlOf(tx),
    'insert into trigger_delivery_receipts (signature, subscription_id, received_at) values (?, ?, now()) on conflict do nothing returning signature',
    [signature, subscription.id],
  );
  if (!fresh) {
    const [first] = await query<{ event_id: string }>(sqlOf(tx), 'select event_id from trigger_delivery_receipts where signature = ?', [signature]);
    return { eventId: first!.event_id };
  }
  const recorded = await recordSubscriptionDelivery(tx, subscription, data);
  await query(sqlOf(tx), 'update trigger_delivery_receipts set event_id = ? where signature = ?', [recorded.eventId, signature]);
  return recorded;
}

/** How long receipts are kept: past the window in which their timestamp could still be accepted (sent up to 5 minutes early). */
export const RECEIPT_RETENTION_MS = 2 * MAX_DELIVERY_AGE_SECONDS * 1000;

/** Deletes receipts older than the window; answers how many. */
export async function pruneDeliveryReceipts(knex: Knex, now: Date = new Date()): Promise<number> {
  const result = await knex.raw('delete from trigger_delivery_receipts where received_at < ?', [new Date(now.getTime() - RECEIPT_RETENTION_MS)]);
  return result.rowCount ?? 0;
}
