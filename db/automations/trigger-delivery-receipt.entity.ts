import { EntitySchema, type Opt } from '@mikro-orm/core';

/**
 * A signed trigger delivery already accepted, by its signature: the same delivery sent again (a provider retrying
 * after a lost answer, or a replay inside the 5-minute window) answers the first event instead of recording another.
 * Receipts older than the window can no longer match an accepted timestamp and are pruned by the workers.
 */
export class TriggerDeliveryReceipt {
  /** The `X-Agentry-Signature` value, unique per subscription secret, timestamp and body. */
  signature!: string;
  subscriptionId!: string;
  /** The outbox event the delivery recorded; null only inside the transaction that records it. */
  eventId?: string | null;
  receivedAt: Opt<Date> = new Date();
}

export const TriggerDeliveryReceiptSchema = new EntitySchema<TriggerDeliveryReceipt>({
  class: TriggerDeliveryReceipt,
  tableName: 'trigger_delivery_receipts',
  indexes: [{ name: 'trigger_delivery_receipts_received_at_index', properties: ['receivedAt'] }],
  properties: {
    signature: { type: 'text', primary: true },
    subscriptionId: { type: 'text' },
    eventId: { type: 'text', nullable: true },
    receivedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
