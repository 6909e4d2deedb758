/**
 * Every activity the worker registers, built from its dependencies. Workflows import this module as a
 * type only (`import type`), so no I/O code enters a workflow bundle.
 */
import type { Orm } from '../db/orm.js';
import { createHeartbeatActivity } from './heartbeat.activity.js';
import { createExecuteNode } from './nodes/index.js';

export interface ActivityDeps {
  orm: Orm;
  /** Identity of the worker process, as Temporal shows it. */
  identity: string;
  taskQueue: string;
}

export function createActivities({ orm, identity, taskQueue }: ActivityDeps) {
  return {
    recordWorkerHeartbeat: createHeartbeatActivity(orm, identity, taskQueue),
    executeNode: createExecuteNode({ orm, httpTimeoutMs: 30_000 }),
  };
}

export type Activities = ReturnType<typeof createActivities>;
