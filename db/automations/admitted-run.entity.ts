import { EntitySchema } from '@mikro-orm/core';

/**
 * One automation run admitted by the outbox dispatcher: written in the transaction that starts it in Temporal, and
 * marked finished when the run ends (`finishRun`, or the ledger sweep for runs ended from outside). Rows without
 * `finishedAt` are the runs in flight that admission counts (db/automations/admission.ts): the count lives in
 * PostgreSQL, not in a dispatcher's memory, so any number of dispatchers see the same count, and a worker dying with
 * runs in hand frees nothing early (Temporal finishes those runs elsewhere).
 *
 * `finishRun` writes its mark as an upsert, so a run that ends before its dispatcher's transaction commits waits for
 * that commit (the primary key) instead of missing the row; the finished rows are kept a while (pruned after an
 * hour), so an event admitted again after a crash finds its run already finished instead of counting it anew.
 */
export class AdmittedRun {
  /** The Temporal workflow id of the run (the ledger's run id). */
  id!: string;
  /** Null on a row written by a run that ended before (or without) its admission. */
  accountId?: number | null;
  workflowId?: number | null;
  admittedAt?: Date | null;
  finishedAt?: Date | null;
  /** Admitted from a background event (a retry job's retry): such runs fill only a share of the bound. */
  background?: boolean;
}

export const AdmittedRunSchema = new EntitySchema<AdmittedRun>({
  class: AdmittedRun,
  tableName: 'admitted_runs',
  indexes: [
    {
      name: 'admitted_runs_in_flight_index',
      expression: 'create index "admitted_runs_in_flight_index" on "admitted_runs" ("workflow_id") where "finished_at" is null',
    },
    { name: 'admitted_runs_finished_at_index', properties: ['finishedAt'] },
  ],
  properties: {
    id: { type: 'text', primary: true },
    accountId: { type: 'integer', nullable: true },
    workflowId: { type: 'integer', nullable: true },
    admittedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    finishedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    background: { type: 'boolean', default: false },
  },
});
