/**
 * The API in a process of its own for benchmarks, as it runs in production (client and server do not share an
 * event loop). Usage: DATABASE_URL=... [TEMPORAL_ADDRESS=... TEMPORAL_TASK_QUEUE=...] node --import tsx
 * test/bench/api-process.ts; prints `port <n>` when ready. Without TEMPORAL_ADDRESS (the data-plane benchmark)
 * a lazy client that is never called stands in for Temporal.
 */
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/app.js';
import { initORM } from '../../db/orm.js';
import { SecretBox } from '../../lib/secret-box.js';
import { onExportTiming } from '../../db/tables/export/export-timing.js';

const orm = await initORM({ databaseUrl: process.env.DATABASE_URL!, poolMax: 10 });
const address = process.env.TEMPORAL_ADDRESS;
const temporal = new Client({ connection: address ? await Connection.connect({ address }) : Connection.lazy({ address: '127.0.0.1:1' }) });
const taskQueue = process.env.TEMPORAL_TASK_QUEUE ?? 'bench';
// SETTINGS_ENCRYPTION_KEY opens stored secrets (the messaging networks' app secrets) as the API's own process does.
const secrets = process.env.SETTINGS_ENCRYPTION_KEY ? SecretBox.fromKey(process.env.SETTINGS_ENCRYPTION_KEY) : null;
if (process.env.BENCH_EXPORT_TIMING) onExportTiming((timing) => console.log(`export-timing ${JSON.stringify(timing)}`));
// BENCH_RATE_LIMIT_PER_KEY=<per second>/<burst>: the per-key limit of every /public/v1 request.
const [perSecond, burst] = (process.env.BENCH_RATE_LIMIT_PER_KEY ?? '').split('/').map(Number);
const rateLimits = perSecond && burst ? { perKey: { perSecond, burst }, perWebhook: null } : undefined;
const app = createApp({
  orm,
  temporal,
  secrets,
  config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 64 * 1024 * 1024, taskQueue, rateLimits },
});
const server = app.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port} pid ${process.pid}`));
process.once('SIGTERM', async () => {
  server.close();
  await orm.close();
  process.exit(0);
});
