import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';

const { recordWorkerHeartbeat } = proxyActivities<Activities>({
  startToCloseTimeout: '5 seconds',
  retry: { maximumAttempts: 2 },
});

/**
 * Proves the whole loop: the API's Temporal client starts it, a worker runs it, and its activity writes to
 * PostgreSQL through MikroORM. `GET /healthz?worker=true` runs it.
 */
export async function checkWorkerHealth() {
  return recordWorkerHeartbeat();
}
