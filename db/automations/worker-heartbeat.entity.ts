import { EntitySchema, type Opt } from '@mikro-orm/core';

/** Last proof of life of one worker process, written by the health-check workflow's activity. */
export class WorkerHeartbeat {
  identity!: string;
  taskQueue!: string;
  checks: Opt<number> = 0;
  firstSeenAt: Opt<Date> = new Date();
  lastSeenAt: Opt<Date> = new Date();
}

export const WorkerHeartbeatSchema = new EntitySchema<WorkerHeartbeat>({
  class: WorkerHeartbeat,
  tableName: 'worker_heartbeats',
  properties: {
    identity: { type: 'text', primary: true },
    taskQueue: { type: 'text' },
    checks: { type: 'integer', default: 0 },
    firstSeenAt: { type: 'Date', columnType: 'timestamptz' },
    lastSeenAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
