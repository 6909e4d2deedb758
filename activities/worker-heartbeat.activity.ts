import type { Orm } from '../db/orm.js';
import { recordHeartbeat, type HeartbeatResult } from '../db/automations/worker-heartbeats.js';

/** Records that this worker is alive and can write to PostgreSQL; the health-check workflow calls it. */
export function createHeartbeatActivity(orm: Orm, identity: string, taskQueue: string) {
  return function recordWorkerHeartbeat(): Promise<HeartbeatResult> {
    return recordHeartbeat(orm.em.fork(), identity, taskQueue);
  };
}
