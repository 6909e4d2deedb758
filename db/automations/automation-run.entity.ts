import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { Automation } from './automation.entity.js';

export type AutomationRunStatus = 'running' | 'successful' | 'failed' | 'cancelled';

/**
 * The ledger row of one automation run, keyed by its Temporal workflow id. Temporal holds the run itself (logs
 * read its visibility and history); this row keeps the workflow's counters and the analytics by date in step.
 */
export class AutomationRun {
  id!: string;
  account!: Account;
  automation!: Automation;
  triggerType!: string;
  eventId?: string | null;
  /** The graph snapshot the run executes (its version, or the draft). */
  snapshotId?: string | null;
  status: Opt<AutomationRunStatus> = 'running';
  preventedLoop: Opt<boolean> = false;
  insufficientCredits: Opt<boolean> = false;
  operations: Opt<number> = 0;
  aiCredits: Opt<number> = 0;
  error?: string | null;
  startedAt!: Date;
  completedAt?: Date | null;
}

export const AutomationRunSchema = new EntitySchema<AutomationRun>({
  class: AutomationRun,
  tableName: 'workflow_runs',
  indexes: [
    { name: 'workflow_runs_workflow_started_index', properties: ['automation', 'startedAt'] },
    { name: 'workflow_runs_account_index', properties: ['account'] },
  ],
  properties: {
    id: { type: 'text', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    automation: { kind: 'm:1', entity: () => Automation, fieldName: 'workflow_id', deleteRule: 'cascade' },
    triggerType: { type: 'text' },
    eventId: { type: 'text', nullable: true },
    snapshotId: { type: 'text', nullable: true },
    status: { type: 'text', default: 'running' },
    preventedLoop: { type: 'boolean', default: false },
    insufficientCredits: { type: 'boolean', default: false },
    operations: { type: 'integer', default: 0 },
    aiCredits: { type: 'double', default: 0 },
    error: { type: 'text', nullable: true },
    startedAt: { type: 'Date', columnType: 'timestamptz' },
    completedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});
