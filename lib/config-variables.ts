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
