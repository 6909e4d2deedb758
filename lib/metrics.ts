/**
 * The metrics of an agentry process in Prometheus form (`/metrics` on the API, the worker's metrics port). Each
 * process has its own registry; counters are in-process and counted where the event happens exactly once (the
 * idempotent run ledger, the dispatcher), gauges over the shared database are read when scraped.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'agentry_' });

export const httpDuration = new Histogram({
  name: 'agentry_http_request_duration_seconds',
  help: 'API request duration, by method, route pattern and status class (2xx, 3xx, 4xx, 5xx, and 429 on its own)',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * The labels of one HTTP request, bounded whatever clients send: the route pattern (or `unmatched`), a method of
 * HTTP's own (others are `other`) and the status class, with 429 kept apart because rate limiting is worth its own
 * line. At most routes × 8 methods × 6 classes series.
 */
export function httpLabels(method: string, route: string | undefined, status: number) {
  const statusClass = status === 429 ? '429' : status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : 'other';
  return { method: HTTP_METHODS.has(method) ? method : 'other', route: route ?? 'unmatched', status: statusClass };
}

export const channelWebhookChecks = new Counter({
  name: 'agentry_channel_webhook_signature_checks_total',
  help: 'Meta webhook deliveries: HMAC signature computations (at most one a delivery), by channel',
  labelNames: ['channel'] as const,
  registers: [registry],
});

export const channelWebhookRefused = new Counter({
  name: 'agentry_channel_webhook_refused_total',
  help: 'Meta webhook deliveries refused, by channel and reason (unsigned, bad_signature, rate_limited)',
  labelNames: ['channel', 'reason'] as const,
  registers: [registry],
});

export const runsTotal = new Counter({
  name: 'agentry_runs_total',
  help: 'Automation runs, by what started them and how they ended (started counts every run once, when it begins)',
  labelNames: ['trigger_type', 'status'] as const,
  registers: [registry],
});

export const nodeDuration = new Histogram({
  name: 'agentry_node_duration_seconds',
  help: 'Duration of node executions (each attempt), by node type and outcome',
  labelNames: ['type', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
  registers: [registry],
});

export const dispatchLag = new Histogram({
  name: 'agentry_outbox_dispatch_lag_seconds',
  help: 'Time from an outbox event being written to its runs being started',
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [registry],
});

export const conversationStreamsOpen = new Gauge({
  name: 'agentry_conversation_streams_open',
  help: "Conversation event streams (the API's and the widget's) open on this API process",
  registers: [registry],
});

export const inboxStreamsOpen = new Gauge({
  name: 'agentry_inbox_streams_open',
  help: 'Operator inbox event streams (GET /inbox/stream) open on this API process',
  registers: [registry],
});

export const rateLimitStoreFailures = new Counter({
  name: 'agentry_rate_limit_store_failures_total',
  help: 'Limited requests let through because the shared buckets in PostgreSQL could not be read',
  registers: [registry],
});

export const admissionSlots = new Gauge({
  name: 'agentry_admission_slots_per_worker',
  help: "Runs in flight allowed per live worker process by this process's dispatcher (tuned from the completion rate)",
  registers: [registry],
});

/** What the outbox holds now, read from the database when scraped. */
export interface OutboxState {
  pending: number;
  oldestPendingSeconds: number;
  parked: number;
}

let readOutbox: (() => Promise<OutboxState>) | undefined;
let lastRead: Promise<OutboxState> | undefined;

/** Where the outbox gauges read from (the process's database); unset, they are not reported. */
export function readOutboxStateWith(read: () => Promise<OutboxState>): void {
  readOutbox = read;
}

/** One database read per scrape, shared by the three gauges. */
function outboxState(): Promise<OutboxState> | undefined {
  if (!readOutbox) return undefined;
  return (lastRead ??= readOutbox().finally(() => setTimeout(() => (lastRead = undefined), 1_000)));
}

const outboxGauge = (name: string, help: string, pick: (s: OutboxState) => number) =>
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const state = await outboxState();
      if (state) this.set(pick(state));
    },
  });
outboxGauge('agentry_outbox_pending_events', 'Outbox events waiting to be dispatched', (s) => s.pending);
outboxGauge('agentry_outbox_oldest_pending_seconds', 'Age of the oldest outbox event waiting to be dispatched', (s) => s.oldestPendingSeconds);
outboxGauge('agentry_outbox_parked_events', 'Outbox events parked after failing to dispatch too often', (s) => s.parked);
