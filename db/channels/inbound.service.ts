/**
 * Meta's webhook, as the API answers it. The handshake (`GET`) answers `hub.challenge` when the verify token is one
 * of a connected account of the channel (or, on a connection's own URL, that connection's). A delivery (`POST`) is
 * checked before its events are read: without a signature header it is refused with no work at all; otherwise its
 * `X-Hub-Signature-256` must be the HMAC of the raw body under the app secret of the connection it claims (the one of
 * its own URL, or on the shared URL the first number or page its events name), one HMAC compared in constant time,
 * whatever the number of accounts; then each message and status it carries for an account connected with THAT secret
 * becomes one outbox event, all in one statement, each once (its key claimed with it, `claimEffects`, so a redelivery
 * adds none).
 * Entries for other accounts are left out: an app's secret only speaks for the numbers and pages connected with it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ForbiddenError, UnauthorizedError } from '../../lib/errors.js';
import { CHANNEL_EVENTS, isSignatureHeader, networkIdsOf, parseDelivery, signedWith, type MetaChannel } from '../../lib/channels/meta-protocol.js';
import { channelWebhookChecks, channelWebhookRefused } from '../../lib/metrics.js';
import { inboundKey, statusKey, type InboundMessageEvent, type InboundStatusEvent } from '../../lib/channels/channel-contract.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { claimEffects } from '../node-effects/node-effects.js';
import { connectionById, connectionsOf, hashVerifyToken, type NetworkConnection } from './network-accounts.service.js';

/** Opened app secrets by their sealed text (sealing is randomised, so a changed secret is another entry). */
const opened = new Map<string, string | null>();
const OPENED_LIMIT = 10_000;

function openSecret(box: SecretBox | null, sealed: string): string | null {
  if (!box) return null;
  if (!opened.has(sealed)) {
    if (opened.size >= OPENED_LIMIT) opened.delete(opened.keys().next().value!);
    opened.set(sealed, box.open(sealed));
  }
  return opened.get(sealed) ?? null;
}

/** The handshake: `hub.challenge` when the mode is `subscribe` and the token is a connected account's; 403 otherwise. */
export async function verifySubscription(
  em: EntityManager,
  channel: MetaChannel,
  query: Record<string, unknown>,
  connectionId?: number,
): Promise<string> {
  const [mode, token, challenge] = ['hub.mode', 'hub.verify_token', 'hub.challenge'].map((name) => query[name]);
  if (mode !== 'subscribe' || typeof token !== 'string' || !token || typeof challenge !== 'string') {
    throw new ForbiddenError('Not a subscription handshake: hub.mode=subscribe, hub.verify_token and hub.challenge are required');
  }
  const hash = hashVerifyToken(token);
  const candidates = connectionId === undefined ? await connectionsOf(em, channel) : [await connectionById(em, channel, connectionId)];
  const connected = candidates.some((c) => c?.verifyTokenHash === hash);
  if (!connected) throw new ForbiddenError(`The verify token is not the token of a connected ${channel} account`);
  return challenge;
}

export interface AcceptedDelivery {
  /** Events written now (a redelivery writes none). */
  events: number;
  /** The people's messages among them, in the delivery's order, with their outbox event's id. */
  messages: (InboundMessageEvent & { eventId: string })[];
}

/**
 * How long the outbox holds back a person's message that the API routes itself at once (`routeAtOnce`,
 * integrations/messaging/inbound-routing.ts): the dispatcher's `channelInbound` only routes it when the API did not
 * say, by then, that it did (it crashed, or Temporal refused): the safety net, not a second routing of every message.
 */
export const ROUTED_AT_ONCE_HOLD_SECONDS = 30;

/** A delivery as the webhook received it: its channel, its own URL's connection if any, the raw body, the signature. */
export interface NetworkDelivery {
  channel: MetaChannel;
  /** The connection whose own callback URL it came to (`/channels/v1/{channel}/webhook/{connection}`); none: the shared URL. */
  connectionId?: number;
  /** Reads the raw body (with the size cap): called only once the signature header has the right form. */
  readBody: () => Promise<Buffer>;
  signature: string | undefined;
}

export interface DeliveryChecks {
  /** Called once the signature is verified, with the accounts the delivery's events are for; throws to refuse it (429). */
  admit?: (accountIds: number[]) => Promise<void>;
  /** Hold people's messages back from the outbox: the API routes them itself at once (`ROUTED_AT_ONCE_HOLD_SECONDS`). */
  routeAtOnce?: boolean;
}

function parsedJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

const unsigned = (channel: MetaChannel, reason: string) => {
  channelWebhookRefused.inc({ channel, reason });
  return new UnauthorizedError('X-Hub-Signature-256 is missing or is not the signature of this body by a connected app');
};

/**
 * The connection whose app secret must have signed the delivery: its own URL's, or, on the shared URL, the one of the
 * first network id its events name (read before the signature is checked, so that one secret is tried, not all).
 */
async function claimedSigner(
  em: EntityManager,
  delivery: NetworkDelivery,
  body: Buffer,
): Promise<{ signer: NetworkConnection | null; json: unknown }> {
  if (delivery.connectionId !== undefined) return { signer: await connectionById(em, delivery.channel, delivery.connectionId), json: undefined };
  const json = parsedJson(body);
  const [first] = json === undefined ? [] : networkIdsOf(parseDelivery(delivery.channel, json));
  const [signer] = first === undefined ? [] : await connectionsOf(em, delivery.channel, [first]);
  return { signer: signer ?? null, json };
}

export async function acceptNetworkDelivery(
  em: EntityManager,
  box: SecretBox | null,
  delivery: NetworkDelivery,
  checks: DeliveryChecks = {},
): Promise<AcceptedDelivery> {
  const { channel, signature } = delivery;
  if (!isSignatureHeader(signature)) throw unsigned(channel, 'unsigned');
  const body = await delivery.readBody();
  const { signer, json: early } = await claimedSigner(em, delivery, body);
  const secret = signer && openSecret(box, signer.appSecretSealed);
  if (!secret) throw unsigned(channel, 'bad_signature');
  channelWebhookChecks.inc({ channel });
  if (!signedWith(body, signature, secret)) throw unsigned(channel, 'bad_signature');
  const json = early ?? parsedJson(body);
  if (json === undefined) throw new BadRequestError('The delivery is not JSON', 'body');
  const parsed = parseDelivery(channel, json);
  // An app's secret speaks for every number and page connected with it, and for no other.
  const ids = networkIdsOf(parsed);
  const connections = ids.length ? await connectionsOf(em, channel, ids) : [];
  const mine = new Map(connections.filter((c) => openSecret(box, c.appSecretSealed) === secret).map((c) => [c.networkId, c]));
  await checks.admit?.([...new Set([...mine.values()].map((c) => c.accountId))]);
  const routeAtOnce = checks.routeAtOnce ?? false;
  const rows: { key: string; accountId: number; type: string; payload: string }[] = [];
  for (const message of parsed.messages) {
    const connection = mine.get(message.networkAccountId);
    if (!connection) continue;
    const event: InboundMessageEvent = { ...message, accountId: connection.accountId, channel, connectionId: connection.connectionId };
    rows.push({ key: inboundKey(event), accountId: connection.accountId, type: CHANNEL_EVENTS.message, payload: JSON.stringify(event) });
  }
  for (const status of parsed.statuses) {
    const connection = mine.get(status.networkAccountId);
    if (!connection) continue;
    const event: InboundStatusEvent = { ...status, accountId: connection.accountId, channel };
    rows.push({
      key: statusKey({ ...event, connectionId: connection.connectionId }),
      accountId: connection.accountId,
      type: CHANNEL_EVENTS.status,
      payload: JSON.stringify(event),
    });
  }
  if (!rows.length) return { events: 0, messages: [] };
  // One statement: the keys claimed and the events of the claimed keys written together, in the delivery's order.
  const result = await em.getKnex().raw(
    `with input as (
       select distinct on (key) key, account_id, type, payload, n
       from unnest(?::text[], ?::int[], ?::text[], ?::text[]) with ordinality as t(key, account_id, type, payload, n)
       order by key, n
     ), claimed as (
       ${claimEffects('select key, null::jsonb from input')}
     )
     insert into outbox_events (account_id, type, payload, created_at, next_attempt_at)
     select i.account_id, i.type, i.payload::json, now(),
       case when ? and i.type = ? then now() + make_interval(secs => ?) end
     from input i join claimed c on c.execution_key = i.key order by i.n
     returning id, type, payload`,
    [
      rows.map((r) => r.key),
      rows.map((r) => r.accountId),
      rows.map((r) => r.type),
      rows.map((r) => r.payload),
      routeAtOnce,
      CHANNEL_EVENTS.message,
      ROUTED_AT_ONCE_HOLD_SECONDS,
    ],
  );
  const written = result.rows as { id: string; type: string; payload: unknown }[];
  return {
    events: written.length,
    messages: written
      .filter((r) => r.type === CHANNEL_EVENTS.message)
      .map((r) => ({ ...(r.payload as InboundMessageEvent), eventId: String(r.id) }))
      .sort((a, b) => Number(a.eventId) - Number(b.eventId)),
  };
}

/**
 * After the API routed a held-back message itself: done (the event is dispatched, its `channelInbound` never starts),
 * or not (the hold is lifted, so the dispatcher's next pass routes it).
 */
export async function settleRoutedAtOnce(em: EntityManager, eventId: string, routed: boolean): Promise<void> {
  await em
    .getKnex()
    .raw(`update outbox_events set ${routed ? 'dispatched_at = now()' : 'next_attempt_at = null'} where id = ? and dispatched_at is null`, [eventId]);
}
