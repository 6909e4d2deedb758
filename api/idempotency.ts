/** The `Idempotency-Key` of inbound routes (lib/idempotency.ts): reading the validated header, answering a replay. */
import type { IncomingHttpHeaders } from 'node:http';
import type { IdempotentAnswer } from '../db/automations/idempotency-keys.js';
import { IDEMPOTENCY_HEADER } from '../lib/idempotency.js';
import { Reply } from './route-registry.js';

/** The key a call came with (validated by the route's `headers` schema), or undefined. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const value = headers[IDEMPOTENCY_HEADER.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The answer with its status; a replayed one says so in `Idempotent-Replayed`, as Stripe does. */
export function idempotentReply(answer: IdempotentAnswer<unknown>): Reply {
  return new Reply(answer.status, answer.body, answer.replayed ? { 'Idempotent-Replayed': 'true' } : {});
}

/** Responses an idempotent route adds to its own. */
export const IDEMPOTENCY_RESPONSES = {
  409: { description: `The ${IDEMPOTENCY_HEADER} was already used with another body (within 24 hours)` },
};
