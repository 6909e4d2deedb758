/**
 * The one configuration loader. Only entry points (API server, worker, launcher, admin CLI, test harness)
 * call it; everything else receives the values it needs as arguments.
 */

import { SecretBox } from './secret-box.js';
import type { OutboundPolicy } from './outbound/address-policy.js';
import type { TrustProxy } from './http/trusted-proxies.js';
import {
  booleanVar,
  ConfigError,
  intVar,
  originsVar,
  outboundVar,
  rateLimitVar,
  signInLimitsVar,
  trustProxyVar,
  urlVar,
  workerQueuesVar,
  type RateLimitSetting,
  type SignInLimitSettings,
} from './config-readers.js';

export { ConfigError, type RateLimitSetting, type SignInLimitSettings } from './config-readers.js';
export { CONFIG_VARIABLES } from './config-variables.js';

/** Validated runtime configuration of every agentry process. */
export interface Config {
  /** Interface the API binds to. */
  host: string;
  /** Port the API listens on. */
  port: number;
  /** Which proxies in front of the API are trusted to say who the client is (X-Forwarded-For, -Proto, -Host). */
  trustProxy: TrustProxy;
  /** How long the API keeps an idle keep-alive connection open, in ms; above the load balancer's idle timeout. */
  keepAliveTimeoutMs: number;
  /** Public origin used to build absolute URLs handed to users (webhook URLs, docs). */
  publicBaseUrl: string;
  /** PostgreSQL connection string. */
  databaseUrl: string;
  /** True when DATABASE_URL was not set: the launcher may create the default database itself. */
  databaseIsDefault: boolean;
  temporal: {
    /** host:port of the Temporal frontend. */
    address: string;
    /** True when TEMPORAL_ADDRESS was not set: the launcher starts the embedded dev server. */
    embedded: boolean;
    namespace: string;
    taskQueue: string;
    /** Address of the Temporal Web UI, printed for operators. */
    uiUrl: string;
  };
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  /** Level of every process's log, the Temporal SDK's in the worker included: TRACE, DEBUG, INFO, WARN or ERROR. */
  logLevel: LogLevel;
  /** `json` lines, or `pretty` lines for a terminal. */
  logFormat: 'json' | 'pretty';
  /** Folder for local state of the embedded services (Temporal SQLite file). */
  dataDir: string;
  /** Folder of the bytes of uploaded record files (the local file store). */
  filesDir: string;
  /** Bytes no file row names are removed once unchanged for this long (see db/tables/files/orphan-sweep.ts). */
  filesOrphanGraceMs: number;
  /** The third-party trigger provider (EXTERNAL_TRIGGER subscriptions); null when TRIGGER_PROVIDER_URL is unset. */
  triggerProvider: { url: string; apiKey: string; signingKey: string } | null;
  /** Key (64 hex digits or base64 of 32 bytes) sealing stored third-party secrets; null when SETTINGS_ENCRYPTION_KEY is unset. */
  settingsKey: string | null;
  /** The OpenAI-compatible AI provider of the AI gateway; null when AI_BASE_URL is unset (AI nodes fail, saying so). */
  ai: { baseUrl: string; apiKey: string } | null;
  /** The messaging product's Cloud API (SEND_MESSAGING_MESSAGE); null when MESSAGING_API_URL is unset. */
  messaging: { baseUrl: string; token: string } | null;
  /** The SearxNG-compatible search API of the `web_search` system tool; null when WEB_SEARCH_URL is unset (the tool is not offered). */
  webSearchUrl: string | null;
  /** Port of the worker's Prometheus metrics (`/metrics`); 0: not served. */
  workerMetricsPort: number;
  /** Port of the Temporal SDK's own Prometheus metrics in the worker; 0: not exported. */
  temporalSdkMetricsPort: number;
  /** Request rate limits of each API process (null: not limited). */
  rateLimits: { perKey: RateLimitSetting | null; perWebhook: RateLimitSetting | null };
  /** The livechat widget API's limits: session starts and messages per client address, messages per session. */
  widgetRateLimits: { perAddress: RateLimitSetting | null; perSession: RateLimitSetting | null };
  /** Browser origins allowed to call the API (CORS); `['*']`: any; empty: none. */
  corsOrigins: string[];
  /** How long a signed-in session (the console's cookie) lives, in ms. */
  sessionTtlMs: number;
  /** Sign-in attempts per client address and per email, and the lockout of an email after failures in a row. */
  signInLimits: SignInLimitSettings;
  /** What an agent says when a turn has no message and no AI provider can write one; null: the built-in text. */
  conversationFallbackMessage: string | null;
  /** Task queues a worker process polls: `runs` (automations, and the outbox dispatcher) and/or `turns` (conversations). */
  workerQueues: ('runs' | 'turns')[];
  /** OS scheduling priority (nice) the worker process sets for itself: 0 unchanged, 1..19 yields the CPU to others. */
  workerNice: number;
  /** PostgreSQL connections one API or worker process may hold (DATABASE_POOL_MAX). */
  databasePoolMax: number;
  /** Open runs or conversations a worker keeps in memory per queue (WORKER_WORKFLOW_CACHE). */
  workerWorkflowCache: number;
  /** The SDK's stack trace of every promise a workflow makes (the Temporal UI's Stack Trace tab); see worker/workflow-threads.cjs. */
  workflowStackTraces: boolean;
  /** Admission control of automation runs: a fixed bound of runs in flight (null: derived), or the share per live worker. */
  admission: { runConcurrency: number | null; slotsPerWorker: number };
  /** Days a closed run's history (its log) is kept; `npm start` sets it on the embedded server's namespace. */
  runHistoryRetentionDays: number;
  /** Which addresses calls to users' URLs (API nodes, custom tools, downloads) may reach (lib/outbound/address-policy.ts). */
  outbound: OutboundPolicy;
}

export const DEFAULT_SLOTS_PER_WORKER = 16;

export type LogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const LOG_LEVELS: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/agentry';

/** Workflows a worker caches per queue unless WORKER_WORKFLOW_CACHE says otherwise (docs/operations.md, "Worker memory"). */
export const DEFAULT_WORKFLOW_CACHE = 500;

/** What an API or worker process says at start when SETTINGS_ENCRYPTION_KEY is unset (npm start always sets it). */
export const NO_SETTINGS_KEY_WARNING =
  'SETTINGS_ENCRYPTION_KEY is not set: messaging tokens, Meta app secrets and widget identity secrets cannot be stored or opened, ' +
  'so WhatsApp, Messenger, Instagram and identified widget visitors are off; give every API and worker process the same key ' +
  '(openssl rand -hex 32; npm start keeps one in .data/settings.key)';

/** Reads and validates the environment once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = intVar(env, 'PORT', 3000, 0, 65535);
  const temporalAddress = env.TEMPORAL_ADDRESS || '127.0.0.1:7233';
  if (!/^[^\s:/]+:\d+$/.test(temporalAddress)) {
    throw new ConfigError(`TEMPORAL_ADDRESS must be host:port, got "${temporalAddress}"`);
  }
  const logLevel = (env.LOG_LEVEL || 'INFO').toUpperCase() as LogLevel;
  const logFormat = env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json');
  if (logFormat !== 'json' && logFormat !== 'pretty') throw new ConfigError(`LOG_FORMAT must be json or pretty, got "${logFormat}"`);
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  const uiPort = intVar(env, 'TEMPORAL_UI_PORT', 8233, 1, 65535);
  let triggerProvider: Config['triggerProvider'] = null;
  if (env.TRIGGER_PROVIDER_URL) {
    const apiKey = env.TRIGGER_PROVIDER_API_KEY?.trim();
    if (!apiKey) throw new ConfigError('TRIGGER_PROVIDER_API_KEY must be set when TRIGGER_PROVIDER_URL is set');
    const signingKey = env.TRIGGER_SIGNING_KEY?.trim() ?? '';
    if (signingKey.length < 32) throw new ConfigError('TRIGGER_SIGNING_KEY must be set (at least 32 characters) when TRIGGER_PROVIDER_URL is set');
    triggerProvider = { url: urlVar(env, 'TRIGGER_PROVIDER_URL', '', ['http:', 'https:']), apiKey, signingKey };
  }
  const settingsKey = env.SETTINGS_ENCRYPTION_KEY?.trim() || null;
  if (settingsKey && !SecretBox.fromKey(settingsKey)) {
    throw new ConfigError('SETTINGS_ENCRYPTION_KEY must be 32 bytes: 64 hex digits or base64 (e.g. the output of openssl rand -base64 32)');
  }
  let ai: Config['ai'] = null;
  if (env.AI_BASE_URL) {
    const apiKey = env.AI_API_KEY?.trim();
    if (!apiKey) throw new ConfigError('AI_API_KEY must be set when AI_BASE_URL is set (any value for a local server without keys)');
    ai = { baseUrl: urlVar(env, 'AI_BASE_URL', '', ['http:', 'https:']), apiKey };
  }
  let messaging: Config['messaging'] = null;
  if (env.MESSAGING_API_URL) {
    const token = env.MESSAGING_API_TOKEN?.trim();
    if (!token) throw new ConfigError('MESSAGING_API_TOKEN must be set when MESSAGING_API_URL is set');
    messaging = { baseUrl: urlVar(env, 'MESSAGING_API_URL', '', ['http:', 'https:']), token };
  }
  return {
    host,
    port,
    trustProxy: trustProxyVar(env),
    keepAliveTimeoutMs: intVar(env, 'HTTP_KEEP_ALIVE_TIMEOUT', 65, 1, 3600) * 1000,
    publicBaseUrl: urlVar(env, 'PUBLIC_BASE_URL', `http://${host}:${port}`, ['http:', 'https:']),
    databaseUrl: urlVar(env, 'DATABASE_URL', DEFAULT_DATABASE_URL, ['postgres:', 'postgresql:']),
    databaseIsDefault: !env.DATABASE_URL,
    databasePoolMax: intVar(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
    temporal: {
      address: temporalAddress,
      embedded: !env.TEMPORAL_ADDRESS,
      namespace: env.TEMPORAL_NAMESPACE || 'default',
      taskQueue: env.TEMPORAL_TASK_QUEUE || 'agentry',
      uiUrl: urlVar(env, 'TEMPORAL_UI_URL', `http://127.0.0.1:${uiPort}`, ['http:', 'https:']),
    },
    bodyLimitBytes: intVar(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 512 * 1024 * 1024),
    logLevel,
    logFormat,
    dataDir: env.AGENTRY_DATA_DIR || '.data',
    filesDir: env.FILES_DIR || `${env.AGENTRY_DATA_DIR || '.data'}/files`,
    filesOrphanGraceMs: intVar(env, 'FILES_ORPHAN_GRACE_SECONDS', 3600, 60, 30 * 86400) * 1000,
    triggerProvider,
    settingsKey,
    ai,
    messaging,
    webSearchUrl: env.WEB_SEARCH_URL ? urlVar(env, 'WEB_SEARCH_URL', '', ['http:', 'https:']) : null,
    workerMetricsPort: intVar(env, 'WORKER_METRICS_PORT', 0, 0, 65535),
    temporalSdkMetricsPort: intVar(env, 'TEMPORAL_SDK_METRICS_PORT', 0, 0, 65535),
    rateLimits: { perKey: rateLimitVar(env, 'RATE_LIMIT', 50, 200), perWebhook: rateLimitVar(env, 'WEBHOOK_RATE_LIMIT', 1000, 2000) },
    widgetRateLimits: {
      perAddress: rateLimitVar(env, 'WIDGET_RATE_LIMIT', 2, 30),
      perSession: rateLimitVar(env, 'WIDGET_SESSION_RATE_LIMIT', 1, 10),
    },
    corsOrigins: originsVar(env, 'CORS_ORIGINS'),
    sessionTtlMs: intVar(env, 'SESSION_TTL_HOURS', 12, 1, 8760) * 3600_000,
    signInLimits: signInLimitsVar(env),
    conversationFallbackMessage: env.CONVERSATION_FALLBACK_MESSAGE?.trim() || null,
    workerQueues: workerQueuesVar(env.WORKER_QUEUES),
    workerNice: intVar(env, 'WORKER_NICE', 0, 0, 19),
    workerWorkflowCache: intVar(env, 'WORKER_WORKFLOW_CACHE', DEFAULT_WORKFLOW_CACHE, 2, 100_000),
    workflowStackTraces: booleanVar(env, 'WORKFLOW_STACK_TRACES', false),
    admission: {
      runConcurrency: env.RUN_CONCURRENCY ? intVar(env, 'RUN_CONCURRENCY', 0, 1, 100_000) : null,
      slotsPerWorker: intVar(env, 'RUN_SLOTS_PER_WORKER', DEFAULT_SLOTS_PER_WORKER, 1, 10_000),
    },
    runHistoryRetentionDays: intVar(env, 'RUN_HISTORY_RETENTION_DAYS', 7, 1, 3650),
    outbound: outboundVar(env),
  };
}
