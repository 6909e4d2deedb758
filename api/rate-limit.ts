/**
 * Request rate limits: a token bucket per API key (every `/public/v1` route) and per incoming webhook (the inbound
 * call). Buckets live in the memory of each API process: no database round trip is added to every request, at the
 * price that N API replicas behind a load balancer allow about N times the configured rate (divide the settings by
 * the replica count). A refused request is a 429 `rate_limited` with `Retry-After`.
 */
import type { Middleware } from 'koa';
import type { RateLimitSetting as RateLimit } from '../lib/config.js';
import { AppError } from '../lib/errors.js';

/** Too many requests for one key or webhook; `retryAfterSeconds` is when one more would be accepted. */
export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    what: string,
  ) {
    super(429, 'rate_limited', `Too many requests for ${what}: retry after ${retryAfterSeconds} s`, { retryAfterSeconds });
  }
}

/** Buckets are forgotten when this many exist (the least recently used first), so memory stays bounded. */
const MAX_BUCKETS = 100_000;

export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Takes one token for `key`: 0 when granted, else the seconds until one is available. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.limit.burst, at: now };
    this.buckets.delete(key); // re-inserted below: the map's order is the order of last use
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.limit.perSecond);
    bucket.at = now;
    const granted = bucket.tokens >= 1;
    if (granted) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
    return granted ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond));
  }
}

/** A middleware charging each request to the bucket `keyOf` names (none: not limited). */
export function rateLimited(
  limit: RateLimit | null | undefined,
  keyOf: (ctx: Parameters<Middleware>[0]) => string | undefined,
  what: string,
): Middleware {
  if (!limit) return (_ctx, next) => next();
  const buckets = new TokenBuckets(limit);
  return async (ctx, next) => {
    const key = keyOf(ctx);
    const wait = key === undefined ? 0 : buckets.take(key);
    if (wait) throw new RateLimitedError(wait, what);
    await next();
  };
}
