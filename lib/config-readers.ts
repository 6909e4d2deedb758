/**
 * The readers of the configuration loader (lib/config.ts): each reads one environment variable (or a family of
 * them), validates it and throws `ConfigError` naming the variable when its value is unusable.
 */
import { AllowListError, parseAllowHosts, type OutboundPolicy } from './outbound/address-policy.js';
import { parseTrustProxy, TrustProxyError, type TrustProxy } from './http/trusted-proxies.js';

/** Thrown when an environment variable has an unusable value; entry points print it and exit. */
export class ConfigError extends Error {}

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

/** `https://app.example.com,http://localhost:5173` → the origins, each checked to be a bare http(s) origin. */
export function originsVar(env: NodeJS.ProcessEnv, name: string): string[] {
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

export function rateLimitVar(env: NodeJS.ProcessEnv, prefix: string, perSecond: number, burst: number): RateLimitSetting | null {
  const rate = intVar(env, `${prefix}_PER_SECOND`, perSecond, 0, 1_000_000);
  return rate === 0 ? null : { perSecond: rate, burst: intVar(env, `${prefix}_BURST`, burst, 1, 10_000_000) };
}

export function signInLimitsVar(env: NodeJS.ProcessEnv): SignInLimitSettings {
  const failures = intVar(env, 'SIGN_IN_LOCKOUT_FAILURES', 10, 0, 1000);
  return {
    perAddress: rateLimitVar(env, 'SIGN_IN_RATE_LIMIT', 1, 10),
    perEmail: rateLimitVar(env, 'SIGN_IN_EMAIL_RATE_LIMIT', 1, 5),
    lockout: failures ? { failures, lockSeconds: intVar(env, 'SIGN_IN_LOCKOUT_SECONDS', 900, 1, 86400) } : null,
  };
}

export function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

export function urlVar(env: NodeJS.ProcessEnv, name: string, fallback: string, protocols: string[]): string {
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

export function booleanVar(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw !== 'true' && raw !== 'false') throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
  return raw === 'true';
}

export function outboundVar(env: NodeJS.ProcessEnv): OutboundPolicy {
  try {
    return { allowPrivate: booleanVar(env, 'OUTBOUND_ALLOW_PRIVATE', false), allowHosts: parseAllowHosts(env.OUTBOUND_ALLOW_HOSTS ?? '') };
  } catch (error) {
    if (error instanceof AllowListError) throw new ConfigError(`OUTBOUND_ALLOW_HOSTS: ${error.message}`);
    throw error;
  }
}

export function trustProxyVar(env: NodeJS.ProcessEnv): TrustProxy {
  try {
    return parseTrustProxy(env.TRUST_PROXY);
  } catch (error) {
    if (error instanceof TrustProxyError) throw new ConfigError(`TRUST_PROXY: ${error.message}`);
    throw error;
  }
}

export function workerQueuesVar(raw: string | undefined): ('runs' | 'turns')[] {
  if (!raw?.trim()) return ['runs', 'turns'];
  const queues = [...new Set(raw.split(',').map((q) => q.trim()))];
  const unknown = queues.filter((q) => q !== 'runs' && q !== 'turns');
  if (unknown.length || !queues.length) throw new ConfigError(`WORKER_QUEUES must be runs, turns or runs,turns, got "${raw}"`);
  return queues as ('runs' | 'turns')[];
}
