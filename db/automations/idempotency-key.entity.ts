import { EntitySchema, type Opt } from '@mikro-orm/core';

/**
 * An `Idempotency-Key` an inbound call came with, per webhook or trigger subscription (`scope`), written in the
 * transaction that records the call's outbox event. The same key with the same body answers the stored answer again;
 * with another body, 409. The primary key makes concurrent calls with one key queue behind the first; the workers
 * delete keys after 24 hours.
 */
export class IdempotencyKey {
  /** `webhook:<webhookId>` or `subscription:<subscriptionId>`: keys of different receivers never meet. */
  scope!: string;
  key!: string;
  /** SHA-256 (hex) of the body: its raw bytes, or its canonical JSON when the body arrives parsed. */
  requestHash!: string;
  /** The outbox event the call recorded; null only inside the transaction that records it. */
  eventId?: string | null;
  /** The answer given, returned as it was to a replay. */
  responseStatus?: number | null;
  responseBody?: Record<string, unknown> | null;
  createdAt: Opt<Date> = new Date();
}

export const IdempotencyKeySchema = new EntitySchema<IdempotencyKey>({
  class: IdempotencyKey,
  tableName: 'idempotency_keys',
  indexes: [{ name: 'idempotency_keys_created_at_index', properties: ['createdAt'] }],
  properties: {
    scope: { type: 'text', primary: true },
    key: { type: 'text', primary: true },
    requestHash: { type: 'text' },
    eventId: { type: 'text', nullable: true },
    responseStatus: { type: 'integer', nullable: true },
    responseBody: { type: 'json', columnType: 'jsonb', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
