/** API entry point: `npm run api`. Scale out by running more of these behind a load balancer. */
import { loadConfig } from '../lib/config.js';
import { createLogger } from '../lib/logger.js';
import { connectTemporal } from '../lib/temporal.js';
import { HttpTriggerProvider } from '../activities/triggers/http-trigger-provider.js';
import { initORM } from '../db/orm.js';
import { LocalFileStore } from '../db/tables/files/local-file-store.js';
import { createApp } from './app.js';
import { aiProviderFrom } from '../activities/ai/openai-compatible-provider.js';

const config = loadConfig();
const logger = createLogger('api', { format: config.logFormat, level: config.logLevel.toLowerCase() });
const orm = await initORM({ databaseUrl: config.databaseUrl });
const temporal = await connectTemporal(config.temporal);
const app = createApp({
  orm,
  temporal,
  config: {
    publicBaseUrl: config.publicBaseUrl,
    bodyLimitBytes: config.bodyLimitBytes,
    taskQueue: config.temporal.taskQueue,
    temporalUiUrl: config.temporal.uiUrl,
    rateLimits: config.rateLimits,
    corsOrigins: config.corsOrigins,
    triggerSigningKey: config.triggerProvider?.signingKey,
  },
  files: new LocalFileStore(config.filesDir),
  ai: aiProviderFrom(config.ai),
  logger,
  triggers: config.triggerProvider
    ? new HttpTriggerProvider({ baseUrl: config.triggerProvider.url, apiKey: config.triggerProvider.apiKey })
    : undefined,
});
const server = app.listen(config.port, config.host, () => {
  logger.info({ url: `${config.publicBaseUrl}/public/v1` }, `API listening on ${config.publicBaseUrl}/public/v1`);
});

async function shutdown(): Promise<void> {
  server.close();
  await temporal.connection.close();
  await orm.close();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
