/**
 * Signed deliveries of the trigger provider (pure). agentry hands the provider, with each subscription, a callback
 * URL `{PUBLIC_BASE_URL}/trigger-deliveries/{subscriptionId}` and a secret of that subscription alone. The secret is
 * derived, never stored: HMAC-SHA256(TRIGGER_SIGNING_KEY, subscriptionId) in hex. Each delivery carries
 *
 *   X-Agentry-Timestamp: <unix seconds when it was sent>
 *   X-Agentry-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>
 *
 * and is accepted only when the signature matches (compared in constant time) and the timestamp is within
 * 5 minutes of the server's clock, so a captured delivery cannot be replayed later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'x-agentry-timestamp';
export const SIGNATURE_HEADER = 'x-agentry-signature';
/** How far a delivery's timestamp may be from the server's clock, either way. */
export const MAX_DELIVERY_AGE_SECONDS = 300;

/** The secret of one subscription under the server's signing key. */
export function subscriptionSecret(signingKey: string, subscriptionId: string): string {
  return createHmac('sha256', signingKey).update(subscriptionId).digest('hex');
}

/** The `X-Agentry-Signature` value of a body sent at `timestamp` (what the provider computes). */
export function signDelivery(secret: string, timestamp: number | string, body: Buffer | string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

/**
 * Why a delivery is refused, or null when its signature and timestamp hold. Only the messages differ: every
 * refusal is answered the same status.
 */
export function deliveryRefusal(
  secret: string,
  headers: { timestamp?: string; signature?: string },
  body: Buffer,
  nowSeconds: number,
): string | null {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature) return `Missing ${!timestamp ? 'X-Agentry-Timestamp' : 'X-Agentry-Signature'} header`;
  if (!/^\d{1,12}$/.test(timestamp)) return 'X-Agentry-Timestamp must be the unix time in seconds';
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_DELIVERY_AGE_SECONDS) {
    return `X-Agentry-Timestamp is more than ${MAX_DELIVERY_AGE_SECONDS / 60} minutes away from the server's clock: deliveries cannot be replayed`;
  }
  const expected = Buffer.from(signDelivery(secret, timestamp, body));
  const given = Buffer.from(signature.trim());
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'X-Agentry-Signature does not match the body';
  return null;
}

/** Where the provider delivers a subscription's events and the secret it signs them with. */
export class TriggerDeliveries {
  constructor(
    private readonly signingKey: string,
    private readonly publicBaseUrl: string,
  ) {}

  callbackUrl(subscriptionId: string): string {
    return `${this.publicBaseUrl}/trigger-deliveries/${encodeURIComponent(subscriptionId)}`;
  }

  secret(subscriptionId: string): string {
    return subscriptionSecret(this.signingKey, subscriptionId);
  }
}
