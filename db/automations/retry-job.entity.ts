import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { Automation } from './automation.entity.js';
import type { RetryFilter } from '../../lib/runtime/retry-jobs.js';

export type RetryJobStatus = 'running' | 'completed' | 'cancelled';

/** What a retry job retries: the failed runs its filter finds, from their failed node or the start, on which graph. */
export interface RetryJobRequest {
  filter: RetryFilter;
  from: 'failed-node' | 'start';
  graph: 'original' | 'live';
}

/**
 * A job retrying many failed runs of an automation (`POST /workflows/{id}/retries`): the `retryRuns` Temporal
 * workflow of id `retry-job:<id>` does the work; this row says what it was asked and how far it got (`planned`,
 * `status`); the runs it started are its `run_retries` rows.
 */
export class RetryJob {
  id!: string;
  account!: Account;
  automation!: Automation;
  request!: RetryJobRequest;
  status: Opt<RetryJobStatus> = 'running';
  /** Failed runs the filter found (null until the job has listed them all). */
  planned?: number | null;
  createdAt: Opt<Date> = new Date();
  finishedAt?: Date | null;
}

export const RetryJobSchema = new EntitySchema<RetryJob>({
  class: RetryJob,
  tableName: 'retry_jobs',
  indexes: [{ name: 'retry_jobs_workflow_index', properties: ['automation'] }],
  properties: {
    id: { type: 'text', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    automation: { kind: 'm:1', entity: () => Automation, fieldName: 'workflow_id', deleteRule: 'cascade' },
    request: { type: 'json', columnType: 'jsonb' },
    status: { type: 'text', default: 'running' },
    planned: { type: 'integer', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    finishedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});
