/**
 * The livechat widget's credentials, pure so any layer can check them. A visitor's session token is
 * `<payload>.<signature>` (base64url): the payload names one agent, one conversation, the identified visitor if any and
 * when the token expires; the signature is HMAC-SHA256 under the agent's session key. An identified visitor proves
 * their `userId` with `userHash = hex(HMAC-SHA256(identity secret, userId))`, computed by the host site's server.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SessionClaims {
  /** Agent id. */
  a: string;
  /** Conversation id. */
  c: string;
  /** Verified visitor id, when identified. */
  u?: string;
  /** Expiry, seconds since the epoch. */
  e: number;
}

const sign = (key: string, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

export function signSessionToken(key: string, claims: SessionClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The claims of a token signed with `key`, whatever its expiry (the caller decides what an expired one may still do:
 * nothing but ask for a new token for the same conversation); null for anything else.
 */
export function readSessionToken(key: string, token: string): SessionClaims | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined || !sameText(sign(key, payload), signature)) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SessionClaims;
    return typeof claims.a === 'string' && typeof claims.c === 'string' && Number.isFinite(claims.e) ? claims : null;
  } catch {
    return null;
  }
}

/** `hex(HMAC-SHA256(secret, userId))`: what the host site's server computes for an identified visitor. */
export function identityHash(secret: string, userId: string): string {
  return createHmac('sha256', secret).update(userId).digest('hex');
}

/** Whether `userHash` proves `userId` under `secret` (compared in constant time). */
export function verifiesIdentity(secret: string, userId: string, userHash: string): boolean {
  return sameText(identityHash(secret, userId), userHash.toLowerCase());
}
