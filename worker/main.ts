/** Worker entry point: `npm run worker`. Scale out by running more of these against the same cluster. */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfig } from '../lib/config.js';
import { initORM } from '../db/orm.js';
import { createWorker } from './create-worker.js';

const config = loadConfig();
Runtime.install({ logger: new DefaultLogger(config.logLevel) });
const orm = await initORM({ databaseUrl: config.databaseUrl });
const connection = await NativeConnection.connect({ address: config.temporal.address });
const worker = await createWorker({ orm, connection, namespace: config.temporal.namespace, taskQueue: config.temporal.taskQueue });
console.log(`worker ${worker.options.identity} polling task queue "${config.temporal.taskQueue}" on ${config.temporal.address}`);
// Worker.run() shuts down gracefully on SIGINT/SIGTERM (the SDK installs those handlers).
await worker.run();
await connection.close();
await orm.close();
