/**
 * `Idempotency-Key` of inbound calls (webhook calls, trigger deliveries), with Stripe's semantics: the same key and
 * body within `IDEMPOTENCY_KEY_TTL_MS` answer the first answer again; another body with that key is a conflict.
 * Pure: the header's schema and the body digests; db/automations/idempotency-keys.ts stores the keys.
 */
import { createHash } from 'node:crypto';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a key is remembered; older keys are swept by the workers and may be used again. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3_600_000;

/** The header as a route declares it: validated and documented from this one schema. */
export const IDEMPOTENCY_HEADER_SCHEMA = {
  type: 'object',
  properties: {
    [IDEMPOTENCY_HEADER]: {
      type: 'string',
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      pattern: '^[\\x21-\\x7E]+$',
      description:
        `Up to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters, e.g. a UUID. The same key with the same body within 24 hours ` +
        'answers the first answer again (same status and eventId, header `Idempotent-Replayed: true`) and starts nothing; ' +
        'with another body it answers 409. Concurrent calls with one key wait for the first and answer like it.',
    },
  },
};

/** JSON with object keys sorted at every level, so two bodies that mean the same compare equal. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 (hex) of raw body bytes, or of the canonical JSON of a parsed body. */
export function bodyDigest(body: Buffer | unknown): string {
  return createHash('sha256')
    .update(Buffer.isBuffer(body) ? body : canonicalJson(body))
    .digest('hex');
}
