/** Worker entry point: `npm run worker`. Scale out by running more of these against the same cluster. */
import { setPriority } from 'node:os';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { loadConfig, NO_SETTINGS_KEY_WARNING } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { temporalLogger } from './temporal-logger.js';
import { initORM } from '../db/orm.js';
import { Client } from '@temporalio/client';
import { createWorker } from './create-worker.js';
import { LocalFileStore } from '../integrations/files/local-file-store.js';
import { aiProviderFrom } from '../integrations/ai/openai-compatible-provider.js';
import { OutboxDispatcher } from './outbox-dispatcher.js';
import { sweepRunLedger } from './run-ledger-sweep.js';
import { serveMetrics } from './metrics-server.js';
import { outboxState } from '../db/automations/event-subscribers.js';
import { readOutboxStateWith } from '../lib/metrics.js';
import { ADMISSION_RETENTION_MS, pruneAdmissions } from '../db/automations/admission.js';
import { NODE_EFFECT_RETENTION_DAYS, pruneNodeEffects } from '../db/node-effects/node-effects.js';
import { SecretBox } from '../lib/secret-box.js';
import { pruneIdempotencyKeys } from '../db/automations/idempotency-keys.js';
import { pruneDeliveryReceipts } from '../db/automations/trigger-deliveries.service.js';
import { vacuumQueueTables } from '../db/automations/queue-vacuum.js';

const config = loadConfig();
// A worker of automation runs may yield the CPU to conversation turns, the API and Temporal (WORKER_NICE).
if (config.workerNice) setPriority(config.workerNice);
const logger = createLogger('worker', { format: config.logFormat, level: config.logLevel.toLowerCase() });
Runtime.install({
  logger: temporalLogger(logger),
  ...(config.temporalSdkMetricsPort
    ? { telemetryOptions: { metrics: { prometheus: { bindAddress: `${config.host}:${config.temporalSdkMetricsPort}` } } } }
    : {}),
});
const orm = await initORM({ databaseUrl: config.databaseUrl, poolMax: config.databasePoolMax });
const connection = await NativeConnection.connect({ address: config.temporal.address });
// The process's client shares the workers' connection, so that the outbox dispatcher may start runs eagerly: the
// server answers the start with the run's first workflow task for this process's worker (no trip through matching).
const temporal = new Client({ connection, namespace: config.temporal.namespace });
const worker = await createWorker({
  orm,
  connection,
  temporal,
  namespace: config.temporal.namespace,
  taskQueue: config.temporal.taskQueue,
  files: new LocalFileStore(config.filesDir),
  aiProvider: aiProviderFrom(config.ai),
  messaging: config.messaging,
  webSearchUrl: config.webSearchUrl,
  conversationFallbackMessage: config.conversationFallbackMessage,
  queues: config.workerQueues,
  workflowCache: config.workerWorkflowCache,
  secrets: config.settingsKey ? SecretBox.fromKey(config.settingsKey) : null,
  outbound: config.outbound,
  temporalUiUrl: config.temporal.uiUrl,
  publicBaseUrl: config.publicBaseUrl,
});
logger.info(
  { identity: worker.options.identity, taskQueues: worker.workers.map((w) => w.options.taskQueue) },
  `worker ${worker.options.identity} polling task queue ${worker.workers.map((w) => `"${w.options.taskQueue}"`).join(' and ')} on ${config.temporal.address}`,
);
if (!config.settingsKey) logger.warn(NO_SETTINGS_KEY_WARNING);
if (!config.workflowStackTraces && !process.execArgv.some((arg) => arg.endsWith('workflow-threads.cjs'))) {
  // Started without the preload of launcher/node-args.ts: the SDK's per-promise stack traces stay on, and cost CPU.
  logger.warn(
    'workflow stack traces are on although WORKFLOW_STACK_TRACES is false: start the worker with npm run worker (it preloads worker/workflow-threads.cjs)',
  );
}
// Every worker process serving runs also dispatches outbox events to Temporal; they share the work through row locks.
const dispatcher = new OutboxDispatcher({
  orm,
  temporal,
  taskQueue: config.temporal.taskQueue,
  databaseUrl: config.databaseUrl,
  log: (message) => logger.warn(message),
  admission: { ...config.admission, identity: worker.options.identity },
  eagerStart: true,
});
if (config.workerQueues.includes('runs')) dispatcher.start();
// Runs ended from outside (terminated in the Temporal UI) are closed in the ledger, so counters stay in step; the
// recorded outcomes of node executions are kept for as long as a retry could want them, and the receipts of trigger
// deliveries until their timestamps can no longer be accepted; Idempotency-Keys of inbound calls for 24 hours. Where
// PostgreSQL's autovacuum is off, the queue tables' dead rows are vacuumed here.
const sweep = setInterval(() => {
  sweepRunLedger(orm, temporal).catch((error) => logger.warn({ err: error }, 'run ledger sweep failed'));
  pruneAdmissions(orm.em.getKnex(), new Date(Date.now() - ADMISSION_RETENTION_MS)).catch((error) =>
    logger.warn({ err: error }, 'pruning admissions failed'),
  );
  pruneNodeEffects(orm.em.getKnex(), new Date(Date.now() - NODE_EFFECT_RETENTION_DAYS * 86_400_000)).catch((error) =>
    logger.warn({ err: error }, 'pruning node effects failed'),
  );
  pruneDeliveryReceipts(orm.em.getKnex()).catch((error) => logger.warn({ err: error }, 'pruning trigger delivery receipts failed'));
  pruneIdempotencyKeys(orm.em.getKnex()).catch((error) => logger.warn({ err: error }, 'pruning idempotency keys failed'));
  vacuumQueueTables(orm.em.getKnex()).catch((error) => logger.warn({ err: error }, 'vacuuming the queue tables failed'));
}, 60_000);
// Prometheus metrics of this worker: runs, node durations, dispatch lag, the outbox.
readOutboxStateWith(() => outboxState(orm.em.getKnex()));
const metrics = config.workerMetricsPort ? serveMetrics(config.workerMetricsPort, config.host) : undefined;
// Worker.run() shuts down gracefully on SIGINT/SIGTERM (the SDK installs those handlers).
await worker.run();
clearInterval(sweep);
metrics?.close();
await dispatcher.stop();
await connection.close();
await orm.close();
