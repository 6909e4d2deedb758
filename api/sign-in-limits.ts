/**
 * How often sign-ins may be tried, through the buckets every API process shares (api/rate-limit.ts): per client
 * address and per email (429 `rate_limited`), and a lockout per email: every attempt takes one of `failures` tokens,
 * a success fills the bucket again, so `failures` wrong passwords in a row lock the email (429 `sign_in_locked`) until
 * a token comes back, one every `lockSeconds`. Unknown emails are limited and locked the same way, so the answers say
 * nothing of which emails have users.
 */
import type { SignInLimitSettings } from '../lib/config.js';
import { RateLimitedError, type SharedBuckets, type TokenBuckets } from './rate-limit.js';

export const NO_SIGN_IN_LIMITS: SignInLimitSettings = { perAddress: null, perEmail: null, lockout: null };

/** Too many failed sign-ins for one email. */
export class SignInLockedError extends RateLimitedError {
  constructor(retryAfterSeconds: number) {
    super(
      retryAfterSeconds,
      'this email',
      'sign_in_locked',
      `Too many failed sign-ins for this email: it is locked; retry after ${retryAfterSeconds} s`,
    );
  }
}

export class SignInLimits {
  private readonly perAddress: TokenBuckets | null;
  private readonly perEmail: TokenBuckets | null;
  private readonly lockout: TokenBuckets | null;

  constructor(buckets: SharedBuckets, settings: SignInLimitSettings) {
    this.perAddress = settings.perAddress && buckets.of('sign-in-address', settings.perAddress);
    this.perEmail = settings.perEmail && buckets.of('sign-in-email', settings.perEmail);
    this.lockout =
      settings.lockout && buckets.of('sign-in-lockout', { perSecond: 1 / settings.lockout.lockSeconds, burst: settings.lockout.failures });
  }

  /** Lets one attempt for `email` from `address` through, or throws 429 (`rate_limited` or `sign_in_locked`). */
  async admit(address: string, email: string): Promise<void> {
    const key = email.trim().toLowerCase();
    const [byAddress, byEmail] = await Promise.all([this.perAddress?.take(address) ?? 0, this.perEmail?.take(key) ?? 0]);
    if (byAddress) throw new RateLimitedError(byAddress, 'sign-ins from this address');
    if (byEmail) throw new RateLimitedError(byEmail, 'sign-ins of this email');
    const locked = (await this.lockout?.take(key)) ?? 0;
    if (locked) throw new SignInLockedError(locked);
  }

  /** The password was right: the email's failures are forgotten. */
  async succeeded(email: string): Promise<void> {
    await this.lockout?.reset(email.trim().toLowerCase());
  }
}
