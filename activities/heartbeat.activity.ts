import type { Orm } from '../db/orm.js';
import { WorkerHeartbeat } from '../db/entities/index.js';

export interface HeartbeatResult {
  identity: string;
  taskQueue: string;
  checks: number;
  lastSeenAt: string;
}

/** Records that this worker is alive and can write to PostgreSQL; the health-check workflow calls it. */
export function createHeartbeatActivity(orm: Orm, identity: string, taskQueue: string) {
  return async function recordWorkerHeartbeat(): Promise<HeartbeatResult> {
    const em = orm.em.fork();
    const now = new Date();
    const rows = await em
      .createQueryBuilder(WorkerHeartbeat)
      .insert({ identity, taskQueue, checks: 1, firstSeenAt: now, lastSeenAt: now })
      .onConflict('identity')
      .merge({ taskQueue, lastSeenAt: now, checks: em.getKnex().raw('worker_heartbeats.checks + 1') as unknown as number })
      .returning(['checks'])
      .execute('all');
    const checks = Number((rows as unknown as { checks: number }[])[0]?.checks);
    return { identity, taskQueue, checks, lastSeenAt: now.toISOString() };
  };
}
