import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from './account.entity.js';

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
}

export const OutboxEventSchema = new EntitySchema<OutboxEvent>({
  class: OutboxEvent,
  tableName: 'outbox_events',
  indexes: [
    {
      name: 'outbox_events_pending_index',
      expression: 'create index "outbox_events_pending_index" on "outbox_events" ("id") where "dispatched_at" is null',
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
  },
});
