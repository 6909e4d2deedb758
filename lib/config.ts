/**
 * The one configuration loader. Only entry points (API server, worker, launcher, admin CLI, test harness)
 * call it; everything else receives the values it needs as arguments.
 */

import { SecretBox } from './secret-box.js';
import { AllowListError, parseAllowHosts, type OutboundPolicy } from './outbound/address-policy.js';
import { parseTrustProxy, TrustProxyError, type TrustProxy } from './http/trusted-proxies.js';

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

/** A token bucket: sustained requests per second, and how many may come at once. */
export interface RateLimitSetting {
  perSecond: number;
  burst: number;
}

/** Limits of sign-ins (api/sign-in-limits.ts); a null limit is off. */
export interface SignInLimitSettings {
  perAddress: RateLimitSetting | null;
  perEmail: RateLimitSetting | null;
  /** `failures` wrong passwords in a row lock the email; then one more try every `lockSeconds`. */
  lockout: { failures: number; lockSeconds: number } | null;
}

/** Thrown when an environment variable has an unusable value; entry points print it and exit. */
export type LogLevel = 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const LOG_LEVELS: LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

export class ConfigError extends Error {}

/** Every environment variable agentry reads, with what it does; README.md documents the same list. */
export const CONFIG_VARIABLES: Record<string, string> = {
  PORT: 'API port (default 3000)',
  HOST: 'interface the API binds to (default 127.0.0.1)',
  TRUST_PROXY:
    "proxies trusted to say who the client is through X-Forwarded-For/-Proto/-Host: unset or false (default: the connection's address is the client, the headers are ignored), a hop count (1: one load balancer in front), or comma-separated proxy addresses and CIDR blocks (loopback, linklocal and uniquelocal name those ranges)",
  HTTP_KEEP_ALIVE_TIMEOUT:
    'seconds the API keeps an idle keep-alive connection open (default 65): above the idle timeout of the load balancer or proxy in front, so the API never closes a connection the proxy is about to reuse',
  PUBLIC_BASE_URL: 'public origin for URLs handed to users (default http://HOST:PORT)',
  DATABASE_URL: 'PostgreSQL URL (default postgres://postgres@127.0.0.1:5432/agentry; created and migrated on start)',
  TEMPORAL_ADDRESS: 'host:port of an existing Temporal cluster; when unset, npm start runs the embedded dev server on 127.0.0.1:7233',
  TEMPORAL_NAMESPACE: 'Temporal namespace (default default)',
  TEMPORAL_TASK_QUEUE: 'task queue of the worker (default agentry)',
  TEMPORAL_UI_PORT: 'port of the embedded Temporal UI (default 8233)',
  TEMPORAL_UI_URL: 'Temporal UI address printed for operators and linked from run logs (default http://127.0.0.1:TEMPORAL_UI_PORT)',
  BODY_LIMIT_BYTES: 'largest accepted request body (default 1048576)',
  LOG_LEVEL: "level of the logs of every process, the Temporal SDK's in the worker included: TRACE, DEBUG, INFO (default), WARN, ERROR",
  LOG_FORMAT: 'json (one JSON object a line) or pretty (readable lines); default pretty when stdout is a terminal, else json',
  AGENTRY_DATA_DIR: 'folder of the embedded Temporal state (default .data)',
  FILES_DIR: 'folder where uploaded record files are stored (default AGENTRY_DATA_DIR/files)',
  FILES_ORPHAN_GRACE_SECONDS:
    'stored bytes that no file row names (an upload cut short, a crash between a deletion and the removal of its bytes) are removed by the API once unchanged for this long (default 3600)',
  TEMPORAL_CLI: 'path of a temporal binary to use instead of building .tools/bin/temporal',
  DEFAULT_ADMIN_EMAIL: 'email of the user of the default account created on the first npm start (default admin@localhost)',
  TEST_DATABASE_URL: 'PostgreSQL server the tests create their per-run database on (default: the DATABASE_URL server)',
  TRIGGER_PROVIDER_URL: 'base URL of the third-party trigger provider (EXTERNAL_TRIGGER nodes); unset: third-party triggers are off',
  TRIGGER_PROVIDER_API_KEY: 'key sent as Bearer token to the trigger provider; required when TRIGGER_PROVIDER_URL is set (no default)',
  TRIGGER_SIGNING_KEY:
    'server key (at least 32 characters) the per-subscription secrets of signed trigger deliveries are derived from; required when TRIGGER_PROVIDER_URL is set',
  SETTINGS_ENCRYPTION_KEY:
    "AES-256-GCM key (64 hex digits or base64 of 32 bytes) sealing stored secrets (per-number messaging tokens, agents' widget identity secrets); same value on the API, the worker and the admin CLI",
  AI_BASE_URL:
    'base URL of an OpenAI-compatible API (OpenAI, Ollama, vLLM, llama.cpp), e.g. http://127.0.0.1:11434/v1; unset: AI nodes fail saying so',
  AI_API_KEY: 'key sent as Bearer token to the AI provider; required when AI_BASE_URL is set (no default; any value for servers without keys)',
  MESSAGING_API_URL: "base URL of the messaging product's Cloud API (SEND_MESSAGING_MESSAGE); unset: those nodes fail saying so",
  WORKER_QUEUES: 'what a worker process serves: runs, turns, or runs,turns (default: both)',
  WORKER_NICE: 'nice value the worker process sets for itself, 0-19 (default 0): a runs worker at 10 leaves the CPU to turns first',
  DATABASE_POOL_MAX:
    "PostgreSQL connections one API or worker process may hold at once, 1-1000 (default 10): size max_connections above it times the processes, plus Temporal's own",
  WORKER_WORKFLOW_CACHE:
    "open runs or conversations a worker keeps in memory per queue, 2-100000 (default 500): the least recently used beyond it is evicted and replays its history when it next moves; each cached conversation holds a fraction of a MiB, so this bounds a turns worker's memory",
  WORKFLOW_STACK_TRACES:
    "true: a worker's workflow threads record the stack trace of every promise a workflow makes, which the Temporal UI's Stack Trace tab of an open run shows; false (default) saves about a quarter of a worker's CPU a run",
  RUN_CONCURRENCY:
    'automation runs in flight at once over all workers; further runs wait in the outbox (default: RUN_SLOTS_PER_WORKER times the live worker processes serving runs)',
  RUN_SLOTS_PER_WORKER:
    'runs in flight per live worker process when RUN_CONCURRENCY is unset, to start with: the dispatcher then tunes it from the completion rate (default 16)',
  RUN_HISTORY_RETENTION_DAYS:
    "days a closed run's history, and so its log, is kept; npm start sets it on the embedded Temporal server's namespace (default 7)",
  CONVERSATION_FALLBACK_MESSAGE:
    'what an agent says when a turn ends without a message and no AI provider can write one (default: a short apology asking the user to rephrase)',
  WEB_SEARCH_URL:
    'SearxNG-compatible JSON search endpoint of the web_search system tool (GET {url}?q=...&format=json); unset: the tool is not offered',
  MESSAGING_API_TOKEN: 'token sent as Bearer to the messaging Cloud API; required when MESSAGING_API_URL is set (no default)',
  WORKER_METRICS_PORT: "port of the worker's Prometheus metrics at /metrics (default 0: off; npm start uses 9464)",
  TEMPORAL_SDK_METRICS_PORT: "port of the Temporal SDK's own Prometheus metrics in the worker (default 0: off; npm start uses 9465)",
  RATE_LIMIT_PER_SECOND:
    'requests per second one API key may make, sustained, over all API processes together (the buckets are in PostgreSQL) (default 50; 0: no limit)',
  RATE_LIMIT_BURST: 'requests one API key may make at once (default 200)',
  WEBHOOK_RATE_LIMIT_PER_SECOND:
    "calls per second one incoming webhook (or trigger subscription, or account on Meta's webhook) accepts, sustained (default 1000; 0: no limit); Meta deliveries refused for their signature get a tenth of it per client address",
  WEBHOOK_RATE_LIMIT_BURST: 'calls one incoming webhook accepts at once (default 2000)',
  WIDGET_RATE_LIMIT_PER_SECOND:
    'livechat widget: session starts and messages per second one client address may make, sustained (default 2; 0: no limit)',
  WIDGET_RATE_LIMIT_BURST: 'livechat widget: session starts and messages one client address may make at once (default 30)',
  WIDGET_SESSION_RATE_LIMIT_PER_SECOND: 'livechat widget: messages per second one visitor session may send, sustained (default 1; 0: no limit)',
  WIDGET_SESSION_RATE_LIMIT_BURST: 'livechat widget: messages one visitor session may send at once (default 10)',
  OUTBOUND_ALLOW_PRIVATE:
    "true: calls to users' URLs (API nodes, custom tools, file downloads) may reach loopback, private and other non-public addresses; default false (npm start: true); link-local and cloud metadata addresses are refused either way",
  OUTBOUND_ALLOW_HOSTS:
    "comma-separated addresses, CIDR blocks, host names (*.example.internal for subdomains), each with an optional :port, that calls to users' URLs may reach although private (e.g. 10.1.2.0/24,ollama.internal:11434); default none",
  CORS_ORIGINS: 'comma-separated browser origins allowed to call the API (https://app.example.com), or * for any; default none',
  SESSION_TTL_HOURS: 'hours a signed-in session (the console) lasts before its user signs in again, 1-8760 (default 12)',
  SIGN_IN_RATE_LIMIT_PER_SECOND: 'sign-ins per second one client address may try, sustained, over all API processes (default 1; 0: no limit)',
  SIGN_IN_RATE_LIMIT_BURST: 'sign-ins one client address may try at once (default 10)',
  SIGN_IN_EMAIL_RATE_LIMIT_PER_SECOND: 'sign-ins per second of one email, sustained (default 1; 0: no limit)',
  SIGN_IN_EMAIL_RATE_LIMIT_BURST: 'sign-ins of one email at once (default 5)',
  SIGN_IN_LOCKOUT_FAILURES:
    'wrong passwords in a row that lock an email (429 sign_in_locked), unknown emails alike; a right one starts the count again (default 10; 0: no lockout)',
  SIGN_IN_LOCKOUT_SECONDS: 'how long a locked email waits for its next try; each further failure locks it as long again (default 900)',
};

/** `https://app.example.com,http://localhost:5173` → the origins, each checked to be a bare http(s) origin. */
function originsVar(env: NodeJS.ProcessEnv, name: string): string[] {
  const list = (env[name] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (list.includes('*')) return ['*'];
  for (const item of list) {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== item.replace(/\/$/, '')) {
      throw new ConfigError(`${name} must list origins such as https://app.example.com (scheme, host, optional port), got "${item}"`);
    }
  }
  return list.map((item) => new URL(item).origin);
}

function rateLimitVar(env: NodeJS.ProcessEnv, prefix: string, perSecond: number, burst: number): RateLimitSetting | null {
  const rate = intVar(env, `${prefix}_PER_SECOND`, perSecond, 0, 1_000_000);
  return rate === 0 ? null : { perSecond: rate, burst: intVar(env, `${prefix}_BURST`, burst, 1, 10_000_000) };
}

function signInLimitsVar(env: NodeJS.ProcessEnv): SignInLimitSettings {
  const failures = intVar(env, 'SIGN_IN_LOCKOUT_FAILURES', 10, 0, 1000);
  return {
    perAddress: rateLimitVar(env, 'SIGN_IN_RATE_LIMIT', 1, 10),
    perEmail: rateLimitVar(env, 'SIGN_IN_EMAIL_RATE_LIMIT', 1, 5),
    lockout: failures ? { failures, lockSeconds: intVar(env, 'SIGN_IN_LOCKOUT_SECONDS', 900, 1, 86400) } : null,
  };
}

const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/agentry';

/** Workflows a worker caches per queue unless WORKER_WORKFLOW_CACHE says otherwise (docs/operations.md, "Worker memory"). */
export const DEFAULT_WORKFLOW_CACHE = 500;

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

function urlVar(env: NodeJS.ProcessEnv, name: string, fallback: string, protocols: string[]): string {
  const raw = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${url.protocol}"`);
  }
  return raw.replace(/\/+$/, '');
}

function booleanVar(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
  return raw === 'true';
}

function outboundVar(env: NodeJS.ProcessEnv): OutboundPolicy {
  try {
    return { allowPrivate: booleanVar(env, 'OUTBOUND_ALLOW_PRIVATE', false), allowHosts: parseAllowHosts(env.OUTBOUND_ALLOW_HOSTS ?? '') };
  } catch (error) {
    if (error instanceof AllowListError) throw new ConfigError(`OUTBOUND_ALLOW_HOSTS: ${error.message}`);
    throw error;
  }
}

function trustProxyVar(env: NodeJS.ProcessEnv): TrustProxy {
  try {
    return parseTrustProxy(env.TRUST_PROXY);
  } catch (error) {
    if (error instanceof TrustProxyError) throw new ConfigError(`TRUST_PROXY: ${error.message}`);
    throw error;
  }
}

function workerQueuesVar(raw: string | undefined): ('runs' | 'turns')[] {
  if (!raw?.trim()) return ['runs', 'turns'];
  const queues = [...new Set(raw.split(',').map((q) => q.trim()))];
  const unknown = queues.filter((q) => q !== 'runs' && q !== 'turns');
  if (unknown.length || !queues.length) throw new ConfigError(`WORKER_QUEUES must be runs, turns or runs,turns, got "${raw}"`);
  return queues as ('runs' | 'turns')[];
}

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
