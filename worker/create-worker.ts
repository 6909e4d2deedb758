import { fileURLToPath } from 'node:url';
import { hostname } from 'node:os';
import type { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { turnsTaskQueue } from '../lib/runtime/conversation-contract.js';
import { DEFAULT_WORKFLOW_CACHE } from '../lib/config.js';
import { createActivities } from '../activities/index.js';
import type { Orm } from '../db/orm.js';
import type { FileStore } from '../db/tables/files/file-store.js';
import { LocalFileStore } from '../integrations/files/local-file-store.js';
import type { AiProvider } from '../integrations/ai/ai-provider.js';
import type { MessagingConfig } from '../integrations/messaging/cloud-api-messaging.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { OutboundPolicy } from '../lib/outbound/address-policy.js';
import { waitOutDatabaseOutages } from './database-outage.js';
import { cachedBundle, sourceDigest } from './workflow-bundle-cache.js';

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
  /** The search API of the `web_search` system tool (WEB_SEARCH_URL); absent: the tool is not offered. */
  webSearchUrl?: string | null;
  /** What agents say when a turn has no message and no AI provider can write one. */
  conversationFallbackMessage?: string | null;
  /** Opens stored third-party secrets (numbers' Cloud API tokens); absent: SETTINGS_ENCRYPTION_KEY is unset. */
  secrets?: SecretBox | null;
  /** The queues this process polls: automation runs, conversation turns, or both (the default). */
  queues?: readonly WorkerQueue[];
  /**
   * Open workflows each queue's worker keeps in memory (WORKER_WORKFLOW_CACHE). The SDK's own default grows with the
   * heap limit (over 2,000 on a 4 GiB heap), and a conversation stays open for a day: without a bound a turns worker
   * keeps every conversation it served that day.
   */
  workflowCache?: number;
  /** Which addresses calls to users' URLs may reach (OUTBOUND_ALLOW_PRIVATE, OUTBOUND_ALLOW_HOSTS); absent: no private one. */
  outbound?: OutboundPolicy;
  /** The Temporal UI's address (TEMPORAL_UI_URL), linked from AUTOMATION_FAILED events; absent: no link. */
  temporalUiUrl?: string | null;
  /** PUBLIC_BASE_URL, linked from CONVERSATION_HANDED_OFF events (the operator console); absent: no link. */
  publicBaseUrl?: string | null;
}

export type WorkerQueue = 'runs' | 'turns';

/**
 * The Temporal workers of one process: automation runs on `taskQueue`, conversation turns on its turns queue
 * (`<taskQueue>-turns`) with slots of their own, so a backlog of runs never takes a turn's slot. Same code, same
 * activities; `WORKER_QUEUES` gives a process one of the two (a turns-only process keeps turns off the event loop
 * that runs automations).
 */
export class AgentryWorker {
  constructor(readonly workers: readonly Worker[]) {}

  get options() {
    return this.workers[0]!.options;
  }

  /** Polls every queue until shutdown; a failure of one stops all. */
  async run(): Promise<void> {
    const all = this.workers.map((worker) => worker.run());
    try {
      await Promise.all(all);
    } catch (error) {
      this.shutdown();
      await Promise.allSettled(all);
      throw error;
    }
  }

  shutdown(): void {
    for (const worker of this.workers) if (worker.getState() === 'RUNNING') worker.shutdown();
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
  webSearchUrl,
  conversationFallbackMessage,
  secrets,
  queues = ['runs', 'turns'],
  workflowCache = DEFAULT_WORKFLOW_CACHE,
  outbound,
  temporalUiUrl,
  publicBaseUrl,
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
    webSearchUrl,
    conversationFallbackMessage,
    secrets,
    outbound,
    temporalUi: temporalUiUrl ? { url: temporalUiUrl, namespace } : null,
    publicBaseUrl,
  });
  // Both workers share one workflow bundle (built once) and the same activity functions.
  const workflowBundle = await workflowBundleOnce();
  // An activity that finds PostgreSQL down waits for it before failing, so a database restart fails no run.
  const interceptors = { activity: [waitOutDatabaseOutages(orm.em.getKnex())] };
  const options = { connection, namespace, identity: workerIdentity, workflowBundle, activities, interceptors, maxCachedWorkflows: workflowCache };
  const queueNames: Record<WorkerQueue, string> = { runs: taskQueue, turns: turnsTaskQueue(taskQueue) };
  return new AgentryWorker(await Promise.all(queues.map((queue) => Worker.create({ ...options, taskQueue: queueNames[queue] }))));
}

/** The bundler's own progress lines are noise in worker logs. */
const quietBundler = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} };

let bundled: ReturnType<typeof bundleWorkflowCode> | undefined;

/**
 * The workflow code does not change while a process runs: a process making several workers (tests) bundles it once,
 * and processes of the same code share the bundle on disk (worker/workflow-bundle-cache.ts).
 */
function workflowBundleOnce(): ReturnType<typeof bundleWorkflowCode> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  bundled ??= cachedBundle(root, sourceDigest(root), () => bundleWorkflowCode({ workflowsPath, logger: quietBundler }));
  bundled.catch(() => (bundled = undefined));
  return bundled;
}
