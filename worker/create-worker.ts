import { fileURLToPath } from 'node:url';
import { hostname } from 'node:os';
import type { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import type { Orm } from '../db/orm.js';
import type { FileStore } from '../db/tables/files/file-store.js';
import { LocalFileStore } from '../db/tables/files/local-file-store.js';
import type { AiProvider } from '../activities/ai/ai-provider.js';
import type { MessagingConfig } from '../activities/messaging/cloud-api-messaging.js';
import type { SecretBox } from '../lib/secret-box.js';

export interface WorkerDeps {
  orm: Orm;
  connection: NativeConnection;
  /** Client for what activities start or change in Temporal (schedules of other automations). */
  temporal: Client;
  namespace: string;
  taskQueue: string;
  /** Where the bytes of record files are stored; the local folder `.data/files` when unset (as the API's default). */
  files?: FileStore;
  /** Optional identity; defaults to pid@host, as Temporal does. */
  identity?: string;
  /** The AI gateway's provider; absent: AI nodes fail saying it is not configured. */
  aiProvider?: AiProvider | null;
  /** The messaging Cloud API; absent: SEND_MESSAGING_MESSAGE nodes fail saying it is not configured. */
  messaging?: MessagingConfig | null;
  /** Opens stored third-party secrets (numbers' Cloud API tokens); absent: SETTINGS_ENCRYPTION_KEY is unset. */
  secrets?: SecretBox | null;
}

/** Path of the workflow bundle's entry module. */
export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Builds a worker that serves every agentry workflow and activity on one task queue. */
export async function createWorker({
  orm,
  connection,
  temporal,
  namespace,
  taskQueue,
  identity,
  files,
  aiProvider,
  messaging,
  secrets,
}: WorkerDeps): Promise<Worker> {
  const workerIdentity = identity ?? `${process.pid}@${hostname()}`;
  return Worker.create({
    connection,
    namespace,
    taskQueue,
    identity: workerIdentity,
    workflowsPath,
    activities: createActivities({
      orm,
      temporal,
      identity: workerIdentity,
      taskQueue,
      files: files ?? new LocalFileStore('.data/files'),
      aiProvider,
      messaging,
      secrets,
    }),
  });
}
