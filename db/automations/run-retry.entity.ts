import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { Automation } from './automation.entity.js';

/**
 * One retry of a failed automation run (`POST /workflows/{id}/logs/{logId}/retry`, or a retry job's): written with
 * the retried run's MANUAL_RUN outbox event, in one transaction. The run logs read both links from here (`retryOf`
 * of the new run, `retries` of the original); a job retries a run at most once (the unique index).
 */
export class RunRetry {
  /** The Temporal workflow id of the new run. */
  id!: string;
  account!: Account;
  automation!: Automation;
  /** The Temporal workflow id of the run it retries. */
  originalId!: string;
  from!: 'failed-node' | 'start';
  graph!: 'original' | 'live';
  /** The retry job that made it; null for a retry of one run. */
  jobId?: string | null;
  createdAt: Opt<Date> = new Date();
}

export const RunRetrySchema = new EntitySchema<RunRetry>({
  class: RunRetry,
  tableName: 'run_retries',
  indexes: [
    { name: 'run_retries_original_id_index', properties: ['originalId'] },
    {
      name: 'run_retries_job_original_unique',
      expression: 'create unique index "run_retries_job_original_unique" on "run_retries" ("job_id", "original_id") where "job_id" is not null',
    },
  ],
  properties: {
    id: { type: 'text', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    automation: { kind: 'm:1', entity: () => Automation, fieldName: 'workflow_id', deleteRule: 'cascade' },
    originalId: { type: 'text' },
    from: { type: 'text' },
    graph: { type: 'text' },
    jobId: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
