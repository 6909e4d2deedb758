/**
 * Request rate limits: a token bucket per API key (every `/public/v1` route), per incoming webhook and trigger
 * subscription, per widget address and session, per Meta account and refusing address. The buckets are PostgreSQL's
 * (db/rate-limit-buckets.ts), so every limit holds for the platform as a whole however many API processes serve it,
 * at one round trip per limited request. A bucket is named by its limit too: a changed setting starts afresh. When
 * PostgreSQL cannot answer, the request is let through (and counted): a limit never turns an outage into refusals.
 * A refused request is a 429 `rate_limited` with `Retry-After`.
 */
import type { Middleware } from 'koa';
import type { Knex } from '@mikro-orm/postgresql';
import type { RateLimitSetting as RateLimit } from '../lib/config.js';
import { AppError } from '../lib/errors.js';
import { rateLimitStoreFailures } from '../lib/metrics.js';
import { dropBucket, sweepFullBuckets, takeToken } from '../db/rate-limit-buckets.js';

/** Too many requests for one key or webhook; `retryAfterSeconds` is when one more would be accepted. */
export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    what: string,
    code: 'rate_limited' | 'sign_in_locked' = 'rate_limited',
    message = `Too many requests for ${what}: retry after ${retryAfterSeconds} s`,
  ) {
    super(429, code, message, { retryAfterSeconds });
  }
}

const SWEEP_EVERY_MS = 60_000;

/** The buckets of one process's limits, on the platform's database. */
export class SharedBuckets {
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly knex: Knex,
    private readonly log?: (message: string, error: unknown) => void,
  ) {}

  /** Buckets named `name` (one per key) under `limit`. */
  of(name: string, limit: RateLimit): TokenBuckets {
    this.sweeper ??= setInterval(() => void sweepFullBuckets(this.knex).catch(() => {}), SWEEP_EVERY_MS).unref();
    return new TokenBuckets(this, `${name}:${limit.perSecond}/${limit.burst}`, limit);
  }

  /** Forgets the bucket `key` (full again); a failure to is logged and ignored, as a failure to take is. */
  async reset(key: string): Promise<void> {
    try {
      await dropBucket(this.knex, key);
    } catch (error) {
      rateLimitStoreFailures.inc();
      this.log?.('rate limit buckets unavailable; bucket not reset', error);
    }
  }

  async take(key: string, limit: RateLimit): Promise<number> {
    try {
      return await takeToken(this.knex, key, limit.perSecond, limit.burst);
    } catch (error) {
      rateLimitStoreFailures.inc();
      this.log?.('rate limit buckets unavailable; request let through', error);
      return 0;
    }
  }
}

export class TokenBuckets {
  constructor(
    private readonly shared: SharedBuckets,
    private readonly name: string,
    private readonly limit: RateLimit,
  ) {}

  /** Takes one token for `key`: 0 when granted, else the seconds until one is available. */
  take(key: string): Promise<number> {
    return this.shared.take(`${this.name}:${key}`, this.limit);
  }

  /** Fills the bucket of `key` again. */
  reset(key: string): Promise<void> {
    return this.shared.reset(`${this.name}:${key}`);
  }
}

/** A middleware charging each request to the bucket `keyOf` names (none: not limited). */
export function rateLimited(
  buckets: SharedBuckets,
  name: string,
  limit: RateLimit | null | undefined,
  keyOf: (ctx: Parameters<Middleware>[0]) => string | undefined,
  what: string,
): Middleware {
  if (!limit) return (_ctx, next) => next();
  const bucket = buckets.of(name, limit);
  return async (ctx, next) => {
    const key = keyOf(ctx);
    const wait = key === undefined ? 0 : await bucket.take(key);
    if (wait) throw new RateLimitedError(wait, what);
    await next();
  };
}
