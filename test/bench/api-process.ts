/**
 * The API in a process of its own for benchmarks, as it runs in production (client and server do not share an
 * event loop). Usage: DATABASE_URL=... node --import tsx test/bench/api-process.ts; prints `port <n>` when ready.
 * The data plane needs no Temporal; a lazy client that is never called stands in for it.
 */
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/app.js';
import { initORM } from '../../db/orm.js';

const orm = await initORM({ databaseUrl: process.env.DATABASE_URL!, poolMax: 10 });
const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
const app = createApp({ orm, temporal, config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 64 * 1024 * 1024, taskQueue: 'bench' } });
const server = app.listen(0, '127.0.0.1', () => console.log(`port ${(server.address() as AddressInfo).port}`));
process.once('SIGTERM', async () => {
  server.close();
  await orm.close();
  process.exit(0);
});
