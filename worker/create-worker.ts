import { fileURLToPath } from 'node:url';
import { hostname } from 'node:os';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { turnsTaskQueue } from '../lib/runtime/conversation-contract.js';
import { createActivities } from '../activities/index.js';
import type { Orm } from '../db/orm.js';
import type { FileStore } from '../db/tables/files/file-store.js';
import { LocalFileStore } from '../db/tables/files/local-file-store.js';
import type { AiProvider } from '../activities/ai/ai-provider.js';
import type { MessagingConfig } from '../activities/messaging/cloud-api-messaging.js';

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
  /** What agents say when a turn has no message and no AI provider can write one. */
  conversationFallbackMessage?: string | null;
}

/**
 * The two Temporal workers of one process: automation runs on `taskQueue`, conversation turns on its turns queue
 * (`<taskQueue>-turns`) with slots of their own, so a backlog of runs never delays a turn. Same code, same activities.
 */
export class AgentryWorker {
  constructor(
    readonly automations: Worker,
    readonly turns: Worker,
  ) {}

  get options() {
    return this.automations.options;
  }

  /** Polls both queues until shutdown; a failure of either stops both. */
  async run(): Promise<void> {
    const both = [this.automations.run(), this.turns.run()];
    try {
      await Promise.all(both);
    } catch (error) {
      this.shutdown();
      await Promise.allSettled(both);
      throw error;
    }
  }

  shutdown(): void {
    for (const worker of [this.automations, this.turns]) if (worker.getState() === 'RUNNING') worker.shutdown();
  }
}

/** Path of the workflow bundle's entry module. */
export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** Builds the workers that serve every agentry workflow and activity: automation runs, and conversation turns. */
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
  conversationFallbackMessage,
}: WorkerDeps): Promise<AgentryWorker> {
  const workerIdentity = identity ?? `${process.pid}@${hostname()}`;
  const activities = createActivities({
    orm,
    temporal,
    identity: workerIdentity,
    taskQueue,
    files: files ?? new LocalFileStore('.data/files'),
    aiProvider,
    messaging,
    conversationFallbackMessage,
  });
  // Both workers share one workflow bundle (built once) and the same activity functions.
  const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: quietBundler });
  const options = { connection, namespace, identity: workerIdentity, workflowBundle, activities };
  const automations = await Worker.create({ ...options, taskQueue });
  const turns = await Worker.create({ ...options, taskQueue: turnsTaskQueue(taskQueue) });
  return new AgentryWorker(automations, turns);
}

/** The bundler's own progress lines are noise in worker logs. */
const quietBundler = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} };
