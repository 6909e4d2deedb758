/**
 * Does a documented limit hold across API processes? One key of its own (a second account) hammers the load
 * balancer for a few seconds, no retries; the answers that got through are compared with what the per-key token
 * bucket allows the platform in that time (burst + rate × seconds). With limits kept in each process's memory, two
 * API processes let about twice that through.
 */
import { bootstrapAccount } from '../../../db/accounts/accounts.service.js';
import { KEY_LIMIT, type SoakPlatform } from './platform.js';

export interface LimitProbe {
  sent: number;
  accepted: number;
  refused: number;
  other: number;
  seconds: number;
  /** What the limit allows the whole platform in `seconds`. */
  allowed: number;
  /** accepted / allowed − 1 */
  excess: number;
}

export async function probeKeyLimit(platform: SoakPlatform, ms = 5_000, callers = 8): Promise<LimitProbe> {
  const { userKey } = await bootstrapAccount(platform.orm.em.fork(), 'Soak limits', 'limits@example.test');
  const counts = { sent: 0, accepted: 0, refused: 0, other: 0 };
  const started = Date.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (Date.now() - started < ms) {
        counts.sent += 1;
        const res = await fetch(`${platform.proxy.origin}/public/v1/agents?limit=1`, { headers: { authorization: `Bearer ${userKey}` } }).catch(
          () => undefined,
        );
        await res?.body?.cancel();
        if (res?.status === 200) counts.accepted += 1;
        else if (res?.status === 429) counts.refused += 1;
        else counts.other += 1;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const allowed = KEY_LIMIT.burst + KEY_LIMIT.perSecond * seconds;
  return { ...counts, seconds, allowed, excess: counts.accepted / allowed - 1 };
}
