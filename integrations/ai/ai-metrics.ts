/** What every AI call records for operators: tokens and latency by model, on the worker's `/metrics`. */
import { Counter, Histogram } from 'prom-client';
import { registry } from '../../lib/metrics.js';

export const aiTokens = new Counter({
  name: 'agentry_ai_tokens_total',
  help: 'Tokens used by AI calls, by provider-side model and kind (prompt or completion)',
  labelNames: ['model', 'kind'] as const,
  registers: [registry],
});

export const aiCallDuration = new Histogram({
  name: 'agentry_ai_call_duration_seconds',
  help: 'Duration of AI call attempts, by provider-side model and outcome',
  labelNames: ['model', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});
