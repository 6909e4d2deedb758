/**
 * Meta's webhook for WhatsApp (`messaging`), Messenger (`facebook`) and Instagram (`instagram`), outside
 * `/public/v1` and keyless: `GET /channels/v1/{channel}/webhook` answers the subscription handshake and
 * `POST /channels/v1/{channel}/webhook` takes signed deliveries (db/channels/inbound.service.ts). The delivery's body
 * is read raw, as the signature covers its bytes.
 */
import type { Client } from '@temporalio/client';
import type { InboundMessageEvent } from '../../lib/channels/channel-contract.js';
import { acceptNetworkDelivery, settleRoutedAtOnce, verifySubscription } from '../../db/channels/inbound.service.js';
import type { Orm } from '../../db/orm.js';
import { OutboxNotifier } from '../../db/automations/outbox-notifier.js';
import { routeChannelMessage } from '../../activities/channel.activity.js';
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
 * What the API routes people's messages with, at once, once their events are stored: to the conversation, as the
 * outbox's `channelInbound` would (`routeChannelMessage`), which stays the safety net (db/channels/inbound.service.ts,
 * `ROUTED_AT_ONCE_HOLD_SECONDS`).
 */
export interface ChannelStarts {
  orm: Orm;
  temporal: Client;
  taskQueue: string;
}

/**
 * Routes the messages of a delivery, each person's in order (parallel across people), after the answer: each routed
 * one's event is marked dispatched; at the first that fails, that person's messages from it on are left to the
 * outbox (their hold lifted), so none overtakes another.
 */
function routeAtOnce(starts: ChannelStarts, outbox: OutboxNotifier, messages: (InboundMessageEvent & { eventId: string })[]): Promise<unknown> {
  const byPerson = new Map<string, typeof messages>();
  for (const m of messages) {
    const person = `${m.channel}:${m.connectionId}:${m.userId}`;
    byPerson.set(person, [...(byPerson.get(person) ?? []), m]);
  }
  return Promise.all(
    [...byPerson.values()].map(async (mine) => {
      let routed = true;
      for (const { eventId, ...event } of mine) {
        if (routed)
          routed = await routeChannelMessage({ ...starts, outbox }, event).then(
            () => true,
            () => false,
          );
        await settleRoutedAtOnce(starts.orm.em.fork(), eventId, routed).catch(() => undefined);
      }
      if (!routed) outbox.poke();
    }),
  );
}

export function channelWebhookRoutes(root: RouteRegistry, secrets: SecretBox | null, bodyLimitBytes: number, starts?: ChannelStarts): void {
  const outbox = starts && new OutboxNotifier(starts.orm.em.getKnex());
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
      const accepted = await acceptNetworkDelivery(
        em,
        secrets,
        channel,
        await readRawBody(stream, bodyLimitBytes),
        Array.isArray(signature) ? signature[0] : signature,
        !!starts,
      );
      if (starts && accepted.messages.length) void routeAtOnce(starts, outbox!, accepted.messages);
      return { events: accepted.events };
    },
  });
}
