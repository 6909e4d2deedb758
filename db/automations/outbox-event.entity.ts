import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

/**
 * An event that may start automation runs, written in the same transaction as the change that caused it.
 * The dispatcher hands undelivered events to Temporal with a workflow id derived from the event id, so a crash
 * or a redelivery neither loses nor doubles a run.
 */
export class OutboxEvent {
  id!: string;
  account!: Account;
  /** TABLE_ROW_CREATED, OBJECT_RECORD_UPDATED, CONTACT_CREATED, INCOMING_WEBHOOK, … */
  type!: string;
  payload!: Record<string, unknown>;
  /** Automations whose runs caused this event, oldest first; a run of one of them again would close a loop. */
  chain?: number[] | null;
  createdAt: Opt<Date> = new Date();
  dispatchedAt?: Date | null;
  /** Failed dispatch attempts so far; each failure waits longer before the next (`nextAttemptAt`). */
  attempts: Opt<number> = 0;
  nextAttemptAt?: Date | null;
  lastError?: string | null;
  /** Set when the event failed too often and was parked; `npm run admin -- outbox --requeue` puts it back. */
  deadLetteredAt?: Date | null;
  /**
   * A run that yields to every other (a retry job's retry): admission takes it after every other pending event, and
   * lets such runs fill only a share of the bound (db/automations/admission.ts), so fresh runs keep their latency.
   */
  background: Opt<boolean> = false;
}

export const OutboxEventSchema = new EntitySchema<OutboxEvent>({
  class: OutboxEvent,
  tableName: 'outbox_events',
  indexes: [
    {
      name: 'outbox_events_pending_index',
      expression: 'create index "outbox_events_pending_index" on "outbox_events" ("id") where "dispatched_at" is null and "dead_lettered_at" is null',
    },
    {
      // Admission picks pending events round-robin by account, background events last (db/automations/admission.ts).
      name: 'outbox_events_pending_account_index',
      expression:
        'create index "outbox_events_pending_account_index" on "outbox_events" ("account_id", "background", "id") where "dispatched_at" is null and "dead_lettered_at" is null',
    },
    {
      name: 'outbox_events_dead_letter_index',
      expression: 'create index "outbox_events_dead_letter_index" on "outbox_events" ("id") where "dead_lettered_at" is not null',
    },
  ],
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    type: { type: 'text' },
    payload: { type: 'json', columnType: 'json' },
    chain: { type: 'json', columnType: 'json', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    dispatchedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    attempts: { type: 'integer', default: 0 },
    nextAttemptAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    lastError: { type: 'text', nullable: true },
    deadLetteredAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    background: { type: 'boolean', default: false },
  },
});
