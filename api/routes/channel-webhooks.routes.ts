/**
 * Meta's webhook for WhatsApp (`messaging`), Messenger (`facebook`) and Instagram (`instagram`), outside
 * `/public/v1` and keyless: `GET /channels/v1/{channel}/webhook` answers the subscription handshake and
 * `POST /channels/v1/{channel}/webhook` takes signed deliveries (integrations/messaging/inbound-routing.ts). Each
 * connected number or page also has a callback URL of its own, `…/webhook/{connection}`, whose app secret is known
 * before anything is read. The delivery's body is read raw, as the signature covers its bytes.
 *
 * Limits: a delivery refused for its signature is charged to the client's address, an accepted one to the account it
 * is for, so junk from one source, however much, never makes another account's deliveries wait.
 */
import { verifySubscription } from '../../db/channels/inbound.service.js';
import { OutboxNotifier } from '../../db/automations/outbox-notifier.js';
import { receiveNetworkDelivery, type RoutingDeps } from '../../integrations/messaging/inbound-routing.js';
import type { RateLimitSetting } from '../../lib/config.js';
import { UnauthorizedError } from '../../lib/errors.js';
import { channelWebhookRefused } from '../../lib/metrics.js';
import { META_CHANNELS, SIGNATURE_HEADER, type MetaChannel } from '../../lib/channels/meta-protocol.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { RateLimitedError, type SharedBuckets } from '../rate-limit.js';
import { Reply, type RouteInput, type RouteRegistry } from '../route-registry.js';
import { readRawBody } from '../raw-body.js';

/** Paths whose body the JSON parser must leave unread. */
export const CHANNEL_WEBHOOK_PATH = /^\/channels\/v1\/[^/]+\/webhook(\/[^/]+)?\/?$/;

const tag = 'Messaging networks';

const channelParam = { enum: [...META_CHANNELS], description: 'messaging (WhatsApp Cloud API), facebook (Messenger) or instagram' };
const connectionParam = {
  type: 'integer',
  minimum: 1,
  maximum: 2147483647,
  description: "The connected number's or social account's id (GET /channels): its own callback URL",
};

/**
 * What the API routes people's messages with, at once, once their events are stored (integrations/messaging/
 * inbound-routing.ts); without it, the outbox's `channelInbound` routes them all.
 */
export type ChannelStarts = Pick<RoutingDeps, 'orm' | 'temporal' | 'taskQueue'>;

/** Deliveries accepted per connected account, at the incoming webhooks' rate (WEBHOOK_RATE_LIMIT_*). */
export interface ChannelWebhookLimits {
  buckets: SharedBuckets;
  perAccount: RateLimitSetting | null;
}

type Params = { channel: MetaChannel; connection?: number };

export function channelWebhookRoutes(
  root: RouteRegistry,
  secrets: SecretBox | null,
  bodyLimitBytes: number,
  starts?: ChannelStarts,
  limits?: ChannelWebhookLimits,
): void {
  const routing = starts && { ...starts, outbox: new OutboxNotifier(starts.orm.em.getKnex()) };
  const limit = limits?.perAccount;
  const perAccount = limit && limits.buckets.of('meta-account', limit);
  // Refused deliveries (unsigned, badly signed) per client address: a tenth of that rate, at least 1 a second.
  const refusals =
    limit && limits.buckets.of('meta-refusals', { perSecond: Math.max(1, limit.perSecond / 10), burst: Math.max(10, Math.ceil(limit.burst / 10)) });

  const admit = async (accountIds: number[]) => {
    for (const accountId of accountIds) {
      const wait = (await perAccount?.take(String(accountId))) ?? 0;
      if (wait) throw new RateLimitedError(wait, "this account's deliveries");
    }
  };

  const deliver = async ({ em, params, headers, stream, clientAddress }: RouteInput<unknown, unknown, Params>) => {
    const signature = headers[SIGNATURE_HEADER];
    try {
      return await receiveNetworkDelivery(
        em,
        secrets,
        routing,
        {
          channel: params.channel,
          connectionId: params.connection,
          readBody: () => readRawBody(stream, bodyLimitBytes),
          signature: Array.isArray(signature) ? signature[0] : signature,
        },
        admit,
      );
    } catch (error) {
      const wait = error instanceof UnauthorizedError ? ((await refusals?.take(clientAddress)) ?? 0) : 0;
      if (!wait) throw error;
      channelWebhookRefused.inc({ channel: params.channel, reason: 'rate_limited' });
      throw new RateLimitedError(wait, 'refused deliveries from this address');
    }
  };

  for (const own of [false, true]) {
    const path = own ? '/channels/v1/:channel/webhook/:connection' : '/channels/v1/:channel/webhook';
    const params = {
      type: 'object',
      required: own ? ['channel', 'connection'] : ['channel'],
      properties: own ? { channel: channelParam, connection: connectionParam } : { channel: channelParam },
    };
    const which = own ? "this number's or page's own callback URL" : 'the callback URL shared by every connection of the channel';
    root.add<unknown, Record<string, unknown>, Params>({
      method: 'get',
      operationId: own ? 'checkConnectionWebhook' : 'checkChannelWebhook',
      path,
      scope: 'public',
      tag,
      summary:
        `Meta's subscription handshake on ${which}: answers hub.challenge (text/plain) when hub.mode is subscribe and hub.verify_token is the ` +
        `verify token of ${own ? 'this connection' : 'a connected number, page or Instagram account of the channel'} (npm run admin -- channel-settings)`,
      params,
      query: {
        type: 'object',
        properties: {
          'hub.mode': { type: 'string', maxLength: 50 },
          'hub.verify_token': { type: 'string', maxLength: 500 },
          'hub.challenge': { type: 'string', maxLength: 500 },
        },
      },
      responses: {
        200: { description: 'hub.challenge, as sent', contentTypes: ['text/plain'] },
        400: { description: 'Unknown channel' },
        403: { description: 'Not a subscribe handshake, or not the verify token of a connection this URL serves' },
      },
      handler: async ({ em, params: { channel, connection }, query }) =>
        new Reply(200, await verifySubscription(em, channel, query, connection), { 'Content-Type': 'text/plain; charset=utf-8' }),
    });

    root.add<unknown, unknown, Params>({
      method: 'post',
      operationId: own ? 'deliverConnectionEvents' : 'deliverChannelEvents',
      path,
      scope: 'public',
      tag,
      summary:
        `Meta delivers messages and statuses on ${which}. Each message reaches its agent once ` +
        '(a redelivery is answered 200 and adds nothing); answered 200 once every event is stored',
      params,
      headers: {
        type: 'object',
        properties: { 'X-Hub-Signature-256': { type: 'string', maxLength: 200, description: 'sha256=<hex HMAC-SHA256(app secret, raw body)>' } },
      },
      rawBody: {
        description:
          "Meta's webhook payload: entry[].changes[].value (WhatsApp: messages, statuses, metadata.phone_number_id) or entry[].messaging[] " +
          '(Messenger, Instagram: sender, recipient, message, delivery, read). Signed with the app secret of the connected account',
        schema: { type: 'object' },
      },
      responses: {
        200: {
          description: 'Stored: the messages will reach their agents',
          schema: { type: 'object', required: ['events'], additionalProperties: false, properties: { events: { type: 'integer' } } },
        },
        400: { description: 'Unknown channel, or a signed body that is not JSON' },
        401: { description: 'Missing signature, or not the signature of this body by the app of the connection it claims' },
        413: { description: 'Body over the size limit' },
        429: { description: 'Too many refused deliveries from this address, or too many deliveries for the account; retry after Retry-After' },
      },
      handler: deliver,
    });
  }
}
