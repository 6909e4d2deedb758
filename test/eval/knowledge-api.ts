/**
 * The knowledge API for the eval and the knowledge benchmarks: a fresh migrated database and `createApp` in this
 * process, with no Temporal behind it (documents are indexed by calling the indexing activities directly).
 */
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/app.js';
import type { AiProvider } from '../../integrations/ai/ai-provider.js';
import { SecretBox } from '../../lib/secret-box.js';
import { migratedDatabase, TEST_SETTINGS_KEY } from '../setup/harness.js';

/** `ai`: the provider the API's queries may call (multi-query rewrites); none by default. */
export async function knowledgeApi(taskQueue: string, ai: AiProvider | null = null) {
  const { databaseUrl, orm } = await migratedDatabase();
  const server = createApp({
    orm,
    ai,
    temporal: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
    config: { publicBaseUrl: 'http://127.0.0.1', bodyLimitBytes: 64 * 1024, taskQueue },
    secrets: SecretBox.fromKey(TEST_SETTINGS_KEY),
    logError: (error: unknown) => console.error(error),
  }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return { databaseUrl, orm, server, api: `http://127.0.0.1:${(server.address() as AddressInfo).port}/public/v1` };
}
