/**
 * The shared test fixture: a fresh PostgreSQL database per run (migrated), a real Temporal dev server started
 * through `TestWorkflowEnvironment.createLocal` from the project's Temporal CLI, one worker on a unique task
 * queue, and the API from `createApp` listening on a free port. Started once by the root hooks.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createApp, type AppDeps } from '../../api/app.js';
import { listenApi } from '../../api/http-server.js';
import { ensureDatabase, dropDatabase } from '../../db/database.js';
import { initORM, migrate, type Orm } from '../../db/orm.js';
import { SEARCH_ATTRIBUTES } from '../../lib/search-attributes.js';
import { DEV_SERVER_DYNAMIC_CONFIG, projectRoot, temporalCliPath } from '../../launcher/temporal-cli.js';
import { type AgentryWorker, createWorker } from '../../worker/create-worker.js';
import { OutboxDispatcher } from '../../worker/outbox-dispatcher.js';
import { OpenAiCompatibleProvider } from '../../integrations/ai/openai-compatible-provider.js';
import { FakeAiServer } from './fake-ai-server.js';
import { FakeMessagingServer } from './fake-messaging-server.js';
import { FakeSearchServer } from './fake-search-server.js';
import { SecretBox } from '../../lib/secret-box.js';
import { startTestCluster, type TestCluster } from './cluster.js';
import { parseAllowHosts, type OutboundPolicy } from '../../lib/outbound/address-policy.js';

export { projectRoot };

/**
 * OUTBOUND_ALLOW_HOSTS of the test worker: its local servers (file server, API node services, fake providers) all
 * listen on 127.0.0.1, which the outbound address policy refuses, like every private address, unless allowed.
 */
export const TEST_OUTBOUND_ALLOW_HOSTS = '127.0.0.1';

/** The test worker's outbound address policy: a cluster's (no private address) with its local servers allowed. */
export const TEST_OUTBOUND_POLICY: OutboundPolicy = { allowPrivate: false, allowHosts: parseAllowHosts(TEST_OUTBOUND_ALLOW_HOSTS) };

/** PUBLIC_BASE_URL of the test API (`listen`) and worker (links to the operator console in events). */
export const TEST_PUBLIC_BASE_URL = 'http://127.0.0.1';

/** SETTINGS_ENCRYPTION_KEY of the test worker and of the admin command line the tests run (32 bytes in hex). */
export const TEST_SETTINGS_KEY = 'a1'.repeat(32);

export interface Harness {
  databaseUrl: string;
  orm: Orm;
  env: TestWorkflowEnvironment;
  taskQueue: string;
  worker: AgentryWorker;
  /** Hands outbox events (webhook calls, row events) to Temporal, as the worker process does. */
  dispatcher: OutboxDispatcher;
  server: Server;
  /** Origin of the API, e.g. http://127.0.0.1:41234 */
  origin: string;
  /** `${origin}/public/v1` */
  baseUrl: string;
  /** The local OpenAI-compatible server behind the worker's (and the API's) AI gateway. */
  ai: FakeAiServer;
  /** The provider the worker and API use, speaking to `ai` with a 3 s timeout. */
  aiProvider: OpenAiCompatibleProvider;
  /** The local Cloud API behind the worker's messaging adapter (token `test-messaging-token`). */
  messaging: FakeMessagingServer;
  /** The local search API behind the worker's WEB_SEARCH_URL (the `web_search` system tool). */
  search: FakeSearchServer;
}

let current: Harness | undefined;
let cluster: TestCluster | undefined;
let workerRun: Promise<void> | undefined;

function testDatabaseUrl(serverUrl?: string): string {
  const server = new URL(serverUrl || process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres');
  server.pathname = `/agentry_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  return server.toString();
}

/** The Temporal cluster the suite runs on with TEST_TEMPORAL=cluster (undefined on the dev server). */
export function harnessCluster(): TestCluster | undefined {
  return cluster;
}

export function harness(): Harness {
  if (!current) throw new Error('test harness not started');
  return current;
}

/** Starts an API on a free port with the harness's ORM and Temporal client; used by tests that need options. */
export async function listen(deps: Partial<AppDeps> = {}): Promise<{ server: Server; origin: string }> {
  const h = current!;
  const app = createApp({
    orm: h.orm,
    temporal: h.env.client,
    config: { publicBaseUrl: TEST_PUBLIC_BASE_URL, bodyLimitBytes: 64 * 1024, taskQueue: h.taskQueue, temporalUiUrl: 'http://temporal-ui.test:8233' },
    secrets: SecretBox.fromKey(TEST_SETTINGS_KEY),
    logError: () => {},
    ...deps,
  });
  const server = listenApi(app, { port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A new database on the test server (or the server of `serverUrl`), created and migrated (drop it with `dropDatabase`). */
export async function migratedDatabase(serverUrl?: string): Promise<{ databaseUrl: string; orm: Orm }> {
  const databaseUrl = testDatabaseUrl(serverUrl);
  await ensureDatabase(databaseUrl);
  const orm = await initORM({ databaseUrl });
  await migrate(orm);
  return { databaseUrl, orm };
}

export async function startHarness(): Promise<Harness> {
  // Tests provoke payload-size warnings on purpose (run-payload-limits): only errors are worth printing.
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
  const { databaseUrl, orm } = await migratedDatabase();
  // TEST_TEMPORAL=cluster runs the suite on a Temporal cluster of separate server processes on PostgreSQL
  // (`npm run cluster`'s topology) instead of the dev server.
  cluster = process.env.TEST_TEMPORAL === 'cluster' ? await startTestCluster(databaseUrl) : undefined;
  const env = cluster
    ? await TestWorkflowEnvironment.createFromExistingServer({ address: cluster.address, namespace: 'default' })
    : await TestWorkflowEnvironment.createLocal({
        server: {
          executable: { type: 'existing-path', path: temporalCliPath() },
          ip: '127.0.0.1',
          searchAttributes: SEARCH_ATTRIBUTES,
          extraArgs: DEV_SERVER_DYNAMIC_CONFIG,
          log: { format: 'pretty', level: 'error' },
        },
      });
  const taskQueue = `test-${randomBytes(4).toString('hex')}`;
  const ai = new FakeAiServer();
  await ai.start();
  // A short timeout keeps the tests of slow answers fast; retries are the aiCall activity's (Temporal's) business.
  const aiProvider = new OpenAiCompatibleProvider({ baseUrl: ai.baseUrl, apiKey: 'test-ai-key', timeoutMs: 3_000 });
  const messaging = new FakeMessagingServer();
  await messaging.start();
  const search = new FakeSearchServer();
  await search.start();
  const worker = await createWorker({
    webSearchUrl: search.url,
    aiProvider,
    messaging: { baseUrl: messaging.baseUrl, token: 'test-messaging-token' },
    secrets: SecretBox.fromKey(TEST_SETTINGS_KEY),
    outbound: TEST_OUTBOUND_POLICY,
    orm,
    connection: env.nativeConnection,
    temporal: env.client,
    namespace: env.namespace ?? 'default',
    taskQueue,
    temporalUiUrl: 'http://temporal-ui.test:8233',
    publicBaseUrl: TEST_PUBLIC_BASE_URL,
  });
  workerRun = worker.run();
  const dispatcher = new OutboxDispatcher({
    orm,
    temporal: env.client,
    taskQueue,
    databaseUrl,
    pollIntervalMs: 500,
    retry: { maxAttempts: 3, baseMs: 200, maxMs: 1_000 },
  });
  dispatcher.start();
  current = {
    databaseUrl,
    orm,
    env,
    taskQueue,
    worker,
    dispatcher,
    server: undefined as unknown as Server,
    origin: '',
    baseUrl: '',
    ai,
    aiProvider,
    messaging,
    search,
  };
  const { server, origin } = await listen();
  Object.assign(current, { server, origin, baseUrl: `${origin}/public/v1` });
  return current;
}

/**
 * One step of stopping the harness, given `seconds` at most: the suite is over, so a step that hangs (an activity a
 * test left running that ignores cancellation) is named on stderr and left behind instead of failing the run.
 */
async function stopStep(name: string, step: Promise<unknown>, seconds = 15): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), seconds * 1000)));
  const outcome = await Promise.race([step.then(() => 'done' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') console.error(`[harness] stopping: ${name} still runs after ${seconds} s; moving on`);
}

export async function stopHarness(): Promise<void> {
  const h = current;
  if (!h) return;
  current = undefined;
  // The suite is over: connections still open (a stream a test left, a keep-alive socket mid-request) are cut, not
  // waited for; with the API's 65-second keep-alive they could hold the close that long.
  const closed = new Promise((resolve) => h.server.close(resolve));
  h.server.closeAllConnections();
  await stopStep('the API server', closed);
  await stopStep('the outbox dispatcher', h.dispatcher.stop());
  h.worker.shutdown();
  await stopStep('the worker', workerRun ?? Promise.resolve());
  await h.env.teardown();
  await cluster?.stop();
  await h.orm.close();
  await h.ai.stop();
  await h.messaging.stop();
  await h.search.stop();
  await dropDatabase(h.databaseUrl);
}
