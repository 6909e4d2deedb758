/**
 * Meta's webhook for WhatsApp (`messaging`), Messenger (`facebook`) and Instagram (`instagram`), outside
 * `/public/v1` and keyless: `GET /channels/v1/{channel}/webhook` answers the subscription handshake and
 * `POST /channels/v1/{channel}/webhook` takes signed deliveries (integrations/messaging/inbound-routing.ts). The
 * delivery's body is read raw, as the signature covers its bytes.
 */
import { verifySubscription } from '../../db/channels/inbound.service.js';
import { OutboxNotifier } from '../../db/automations/outbox-notifier.js';
import { receiveNetworkDelivery, type RoutingDeps } from '../../integrations/messaging/inbound-routing.js';
import { META_CHANNELS, SIGNATURE_HEADER, type MetaChannel } from '../../lib/channels/meta-protocol.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { Reply, type RouteRegistry } from '../route-registry.js';
import { readRawBody } from '../raw-body.js';

/** Paths whose body the JSON parser must leave unread. */
export const CHANNEL_WEBHOOK_PATH = /^\/channels\/v1\/[^/]+\/webhook\/?$/;

const tag = 'Messaging networks';

const params = {
  type: 'object',
  required: ['channel'],
  properties: { channel: { enum: [...META_CHANNELS], description: 'messaging (WhatsApp Cloud API), facebook (Messenger) or instagram' } },
};

/**
 * What the API routes people's messages with, at once, once their events are stored (integrations/messaging/
 * inbound-routing.ts); without it, the outbox's `channelInbound` routes them all.
 */
export type ChannelStarts = Pick<RoutingDeps, 'orm' | 'temporal' | 'taskQueue'>;

export function channelWebhookRoutes(root: RouteRegistry, secrets: SecretBox | null, bodyLimitBytes: number, starts?: ChannelStarts): void {
  const routing = starts && { ...starts, outbox: new OutboxNotifier(starts.orm.em.getKnex()) };
  root.add<unknown, Record<string, unknown>, { channel: MetaChannel }>({
    method: 'get',
    operationId: 'checkChannelWebhook',
    path: '/channels/v1/:channel/webhook',
    scope: 'public',
    tag,
    summary:
      "Meta's subscription handshake: answers hub.challenge (text/plain) when hub.mode is subscribe and hub.verify_token is the verify token " +
      'of a connected number, page or Instagram account of the channel (npm run admin -- channel-settings)',
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
      403: { description: 'Not a subscribe handshake, or a verify token no connected account of the channel has' },
    },
    handler: async ({ em, params: { channel }, query }) =>
      new Reply(200, await verifySubscription(em, channel, query), { 'Content-Type': 'text/plain; charset=utf-8' }),
  });

  root.add<unknown, unknown, { channel: MetaChannel }>({
    method: 'post',
    operationId: 'deliverChannelEvents',
    path: '/channels/v1/:channel/webhook',
    scope: 'public',
    tag,
    summary:
      'Meta delivers messages and statuses of connected numbers, pages and Instagram accounts. Each message reaches its agent once ' +
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
      400: { description: 'Unknown channel, or a body that is not JSON' },
      401: { description: 'Missing signature, or not the signature of this body by the app of a connected account' },
      413: { description: 'Body over the size limit' },
      429: { description: 'Too many deliveries on this channel; retry after Retry-After' },
    },
    handler: async ({ em, params: { channel }, headers, stream }) => {
      const signature = headers[SIGNATURE_HEADER];
      return receiveNetworkDelivery(em, secrets, routing, {
        channel,
        body: await readRawBody(stream, bodyLimitBytes),
        signature: Array.isArray(signature) ? signature[0] : signature,
      });
    },
  });
}
