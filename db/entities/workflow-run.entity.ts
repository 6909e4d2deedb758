import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from './account.entity.js';
import { Workflow } from './workflow.entity.js';

export type WorkflowRunStatus = 'running' | 'successful' | 'failed' | 'cancelled';

/**
 * The ledger row of one automation run, keyed by its Temporal workflow id. Temporal holds the run itself (logs
 * read its visibility and history); this row keeps the workflow's counters and the analytics by date in step.
 */
export class WorkflowRun {
  id!: string;
  account!: Account;
  workflow!: Workflow;
  triggerType!: string;
  eventId?: string | null;
  status: Opt<WorkflowRunStatus> = 'running';
  preventedLoop: Opt<boolean> = false;
  insufficientCredits: Opt<boolean> = false;
  operations: Opt<number> = 0;
  aiCredits: Opt<number> = 0;
  error?: string | null;
  startedAt!: Date;
  completedAt?: Date | null;
}

export const WorkflowRunSchema = new EntitySchema<WorkflowRun>({
  class: WorkflowRun,
  tableName: 'workflow_runs',
  indexes: [
    { name: 'workflow_runs_workflow_started_index', properties: ['workflow', 'startedAt'] },
    { name: 'workflow_runs_account_index', properties: ['account'] },
  ],
  properties: {
    id: { type: 'text', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    workflow: { kind: 'm:1', entity: () => Workflow, deleteRule: 'cascade' },
    triggerType: { type: 'text' },
    eventId: { type: 'text', nullable: true },
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
