/** API entry point: `npm run api`. Scale out by running more of these behind a load balancer. */
import { loadConfig, NO_SETTINGS_KEY_WARNING } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { connectTemporal } from '../integrations/temporal/client.js';
import { HttpTriggerProvider } from '../integrations/triggers/http-trigger-provider.js';
import { initORM } from '../db/orm.js';
import { LocalFileStore } from '../integrations/files/local-file-store.js';
import { startOrphanSweeps } from '../db/tables/files/orphan-sweep.js';
import { createApp } from './app.js';
import { ConversationFeed } from './conversation-feed.js';
import { listenApi } from './http-server.js';
import { SecretBox } from '../lib/secret-box.js';
import { aiProviderFrom } from '../integrations/ai/openai-compatible-provider.js';

const config = loadConfig();
const logger = createLogger('api', { format: config.logFormat, level: config.logLevel.toLowerCase() });
if (!config.settingsKey) logger.warn(NO_SETTINGS_KEY_WARNING);
const orm = await initORM({ databaseUrl: config.databaseUrl, poolMax: config.databasePoolMax });
const temporal = await connectTemporal(config.temporal);
const files = new LocalFileStore(config.filesDir);
// One LISTEN connection wakes this process's open conversation streams.
const feed = new ConversationFeed(config.databaseUrl, { log: (message) => logger.warn(message) });
const app = createApp({
  orm,
  temporal,
  feed,
  config: {
    publicBaseUrl: config.publicBaseUrl,
    trustProxy: config.trustProxy,
    bodyLimitBytes: config.bodyLimitBytes,
    taskQueue: config.temporal.taskQueue,
    temporalUiUrl: config.temporal.uiUrl,
    rateLimits: config.rateLimits,
    corsOrigins: config.corsOrigins,
    widgetRateLimits: config.widgetRateLimits,
    sessionTtlMs: config.sessionTtlMs,
    signInLimits: config.signInLimits,
    triggerSigningKey: config.triggerProvider?.signingKey,
  },
  files,
  secrets: config.settingsKey ? SecretBox.fromKey(config.settingsKey) : null,
  ai: aiProviderFrom(config.ai),
  logger,
  triggers: config.triggerProvider
    ? new HttpTriggerProvider({ baseUrl: config.triggerProvider.url, apiKey: config.triggerProvider.apiKey })
    : undefined,
});
const server = listenApi(app, { port: config.port, host: config.host, keepAliveTimeoutMs: config.keepAliveTimeoutMs }, () => {
  logger.info({ url: `${config.publicBaseUrl}/public/v1` }, `API listening on ${config.publicBaseUrl}/public/v1`);
});

// Bytes that no file row names are removed at start and then every grace period (at most hourly).
const stopSweeps = startOrphanSweeps(orm.em, files, {
  graceMs: config.filesOrphanGraceMs,
  intervalMs: Math.min(config.filesOrphanGraceMs, 3600_000),
  onSwept: ({ seen, removed }) => {
    if (removed.length) logger.info({ seen, removed: removed.length }, `removed ${removed.length} stored files that no file row names`);
  },
  onError: (error) => logger.error({ err: error }, 'sweep of unnamed stored files failed'),
});

async function shutdown(): Promise<void> {
  stopSweeps();
  server.close();
  await feed.close();
  await temporal.connection.close();
  await orm.close();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
