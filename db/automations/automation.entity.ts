import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

export type AutomationStatus = 'ACTIVE' | 'DRAFT' | 'PAUSED' | 'ARCHIVED';

/** An account-level automation. Its graph lives in snapshots: one mutable draft, immutable live ones. */
export class Automation {
  id!: number;
  account!: Account;
  name!: string;
  description?: string | null;
  status: Opt<AutomationStatus> = 'DRAFT';
  /** Follows the graph: the TRIGGER node's event, INCOMING_WEBHOOK, or SCHEDULED_TRIGGER. */
  triggerType?: string | null;
  runsCount: Opt<number> = 0;
  runsFailedCount: Opt<number> = 0;
  lastRunDate?: Date | null;
  draftSnapshotId!: string;
  liveSnapshotId?: string | null;
  /** Runs of this automation in flight at once (null: only the global bound); further runs wait in the outbox, in order. */
  concurrencyLimit?: number | null;
  deletedAt?: Date | null;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const AutomationSchema = new EntitySchema<Automation>({
  class: Automation,
  tableName: 'workflows',
  indexes: [{ name: 'workflows_account_index', properties: ['account'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    status: { type: 'text', default: 'DRAFT' },
    triggerType: { type: 'text', nullable: true },
    runsCount: { type: 'integer', default: 0 },
    runsFailedCount: { type: 'integer', default: 0 },
    lastRunDate: { type: 'Date', columnType: 'timestamptz', nullable: true },
    draftSnapshotId: { type: 'text' },
    liveSnapshotId: { type: 'text', nullable: true },
    concurrencyLimit: { type: 'integer', nullable: true },
    deletedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
