/**
 * Calls of incoming webhooks (SPEC.md, Incoming webhook; Authentication rule 7): each accepted call becomes an
 * INCOMING_WEBHOOK outbox event (DESIGN.md, Events that start runs). The webhooks themselves:
 * incoming-webhooks.service.ts.
 */
import { timingSafeEqual } from 'node:crypto';
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { NotFoundError, UnauthorizedError } from '../../lib/errors.js';
import { bodyDigest } from '../../lib/idempotency.js';
import type { IncomingWebhook } from './incoming-webhook.entity.js';
import { OUTBOX_PENDING } from './outbox-notifier.js';
import { sqlOf } from '../tables/table-lookups.js';
import { oncePerKey, type IdempotentAnswer } from './idempotency-keys.js';
import { findWebhook, INCOMING_WEBHOOK_EVENT, tokenHash, WEBHOOK_ID_PATTERN } from './incoming-webhooks.service.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * One inbound call. Unknown or inactive webhook: 404. With useAuthentication, the access token must come as
 * `Authorization: Bearer <token>` (401 otherwise; compared in constant time). Accepted: the INCOMING_WEBHOOK
 * outbox event `{ webhookId, receivedAt, body }` is written and its id returned; the runs it starts are not waited
 * for. Without an `Idempotency-Key`, the webhook's lookup and the event's insert are one statement (one round trip,
 * atomic on its own). With one (checked after the token, so only the webhook's caller can probe its keys), the key
 * is stored in the event's transaction and a replay answers the first answer (db/automations/idempotency-keys.ts).
 */
export async function acceptWebhookCall(
  em: EntityManager,
  webhookId: string,
  authorizationHeader: string | undefined,
  body: unknown,
  idempotencyKey?: string,
): Promise<IdempotentAnswer<{ eventId: string }>> {
  if (!WEBHOOK_ID_PATTERN.test(webhookId)) throw notFound(webhookId);
  const presented = presentedTokenHash(authorizationHeader);
  if (idempotencyKey === undefined) {
    const { webhook, eventId } = await recordCall(em.getKnex(), webhookId, presented, body);
    if (eventId !== null) return { status: ACCEPTED, body: { eventId }, replayed: false };
    checkCall(webhookId, webhook, authorizationHeader);
    throw notFound(webhookId); // the check passes what the statement refused only if the webhook changed in between
  }
  checkCall(webhookId, await findWebhook(em, webhookId), authorizationHeader);
  const call = { scope: `webhook:${webhookId}`, key: idempotencyKey, requestHash: bodyDigest(body) };
  return em.transactional((tx) =>
    oncePerKey(tx, call, ACCEPTED, async () => {
      const { eventId } = await recordCall(sqlOf(tx), webhookId, presented, body);
      if (eventId === null) throw notFound(webhookId); // deactivated meanwhile
      return { eventId };
    }),
  );
}

/** What a call of the webhook needs of it. */
type InboundWebhook = Pick<IncomingWebhook, 'isActive' | 'useAuthentication' | 'tokenHash'>;

/** The status of an accepted call, stored with its key so a replay answers it again. */
const ACCEPTED = 202;

const notFound = (webhookId: string) => new NotFoundError(`Incoming webhook ${webhookId} not found or inactive`);

/** The digest (hex) of the access token an Authorization header presents; null when it presents none. */
function presentedTokenHash(authorizationHeader: string | undefined): string | null {
  const match = authorizationHeader ? BEARER.exec(authorizationHeader) : null;
  return match ? tokenHash(match[1]!).toString('hex') : null;
}

/**
 * Looks the webhook up and, when the call is accepted (the webhook active and, when it asks for a token, the
 * presented token's digest is its digest), writes the call's event, in one statement; every call looks its webhook
 * up, so it is a plain query. Answers the webhook as found and the event's id (null when none was written).
 */
async function recordCall(
  sql: Knex,
  webhookId: string,
  presented: string | null,
  body: unknown,
): Promise<{ webhook: InboundWebhook | null; eventId: string | null }> {
  const receivedAt = new Date().toISOString();
  const result = await sql.raw(
    `with hook as (select id, account_id, is_active, use_authentication, token_hash from incoming_webhooks where id = ?),
     event as (
       insert into outbox_events (account_id, type, payload, created_at)
       select account_id, ?, ?::json, ? from hook
        where is_active and (not use_authentication or token_hash = ?)
       returning id)
     select is_active as "isActive", use_authentication as "useAuthentication", token_hash as "tokenHash",
            (select id from event) as "eventId", exists (select 1 from event) as ${OUTBOX_PENDING}
       from hook`,
    [webhookId, INCOMING_WEBHOOK_EVENT, JSON.stringify({ webhookId, receivedAt, body }), receivedAt, presented],
  );
  const row = result.rows[0] as (InboundWebhook & { eventId: string | null }) | undefined;
  if (!row) return { webhook: null, eventId: null };
  const { eventId, ...webhook } = row;
  return { webhook, eventId: eventId === null ? null : String(eventId) };
}

/** Refuses a call of `webhook` (null: not found) that it does not accept: 404, or 401 for its token. */
function checkCall(webhookId: string, webhook: InboundWebhook | null, authorizationHeader: string | undefined): void {
  if (!webhook || !webhook.isActive) throw notFound(webhookId);
  if (webhook.useAuthentication) verifyAccessToken(webhook, authorizationHeader);
}

function verifyAccessToken(webhook: InboundWebhook, authorizationHeader: string | undefined): void {
  if (!authorizationHeader) {
    throw new UnauthorizedError('Missing access token: send the header "Authorization: Bearer <ACCESS_TOKEN>"');
  }
  const match = BEARER.exec(authorizationHeader);
  if (!match) throw new UnauthorizedError('Malformed Authorization header: expected "Bearer <ACCESS_TOKEN>"');
  // Both sides are 32-byte digests, so the comparison takes the same time whatever was presented.
  const presented = tokenHash(match[1]!);
  const expected = Buffer.from(webhook.tokenHash ?? '', 'hex');
  if (expected.length !== presented.length || !timingSafeEqual(presented, expected)) {
    throw new UnauthorizedError('Invalid access token for this webhook');
  }
}
