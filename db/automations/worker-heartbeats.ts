/** The worker-alive rows: each worker process records that it runs and can write to PostgreSQL (`worker_heartbeats`). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkerHeartbeat } from './worker-heartbeat.entity.js';

/** What one heartbeat recorded, as the health check reports it. */
export interface HeartbeatResult {
  identity: string;
  taskQueue: string;
  checks: number;
  lastSeenAt: string;
}

/** Records one heartbeat of worker `identity` (its first, or one more). */
export async function recordHeartbeat(em: EntityManager, identity: string, taskQueue: string): Promise<HeartbeatResult> {
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
}
