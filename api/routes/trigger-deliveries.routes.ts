import { acceptTriggerDelivery } from '../../db/automations/trigger-deliveries.service.js';
import { IDEMPOTENCY_HEADER_SCHEMA } from '../../lib/idempotency.js';
import { MAX_DELIVERY_AGE_SECONDS, SIGNATURE_HEADER, TIMESTAMP_HEADER, type TriggerDeliveries } from '../../lib/triggers/delivery-signature.js';
import { IDEMPOTENCY_RESPONSES, idempotencyKeyOf, idempotentReply } from '../idempotency.js';
import type { RouteRegistry } from '../route-registry.js';
import { readRawBody } from '../raw-body.js';

/** Paths whose body the JSON parser must leave unread: the signature covers the bytes as sent. */
export const TRIGGER_DELIVERY_PATH = /^\/trigger-deliveries\/[^/]+\/?$/;

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/**
 * `POST /trigger-deliveries/:subscriptionId` (outside `/public/v1`, no API key): the trigger provider delivers the
 * events of a subscription, signed with the subscription's secret (lib/triggers/delivery-signature.ts).
 */
export function inboundTriggerRoutes(root: RouteRegistry, deliveries: TriggerDeliveries | undefined, bodyLimitBytes: number): void {
  root.add<unknown, unknown, { subscriptionId: string }>({
    method: 'post',
    operationId: 'deliverTriggerEvent',
    path: '/trigger-deliveries/:subscriptionId',
    scope: 'public',
    status: 202,
    tag: 'Trigger deliveries',
    summary:
      'The trigger provider delivers one event of an EXTERNAL_TRIGGER subscription; it starts the ACTIVE workflow holding it, ' +
      'with { connectedAccountTriggerId, subscriptionId, data } as {trigger_payload}',
    params: {
      type: 'object',
      required: ['subscriptionId'],
      properties: { subscriptionId: { type: 'string', maxLength: 100, description: "agentry's id of the subscription, from the callback URL" } },
    },
    headers: IDEMPOTENCY_HEADER_SCHEMA,
    rawBody: {
      description:
        `The event, any JSON value. Signed: \`${TIMESTAMP_HEADER}: <unix seconds>\` and \`${SIGNATURE_HEADER}: v1=<hex HMAC-SHA256(secret, ` +
        `"<timestamp>.<raw body>")>\`, the secret being the one handed over with the callback URL; timestamps more than ` +
        `${MAX_DELIVERY_AGE_SECONDS} s away from the server's clock are refused`,
      schema: {},
    },
    responses: {
      202: {
        description: 'Recorded; the subscribed run starts without being waited for',
        schema: {
          type: 'object',
          required: ['eventId'],
          additionalProperties: false,
          properties: { eventId: { type: 'string', description: 'Id of the EXTERNAL_TRIGGER event' } },
        },
      },
      400: { description: 'The body is empty or not JSON, or the Idempotency-Key is empty or too long' },
      401: { description: 'Missing or wrong signature, or a timestamp more than 5 minutes away (a replay)' },
      404: { description: 'Unknown subscription (its node or workflow was deleted), or deliveries not configured' },
      413: { description: 'Body over the size limit' },
      429: { description: 'Too many deliveries for this subscription; retry after Retry-After' },
      ...IDEMPOTENCY_RESPONSES,
    },
    handler: async ({ em, params, headers, stream }) =>
      idempotentReply(
        await acceptTriggerDelivery(em, deliveries, {
          subscriptionId: params.subscriptionId,
          timestamp: header(headers[TIMESTAMP_HEADER]),
          signature: header(headers[SIGNATURE_HEADER]),
          body: await readRawBody(stream, bodyLimitBytes),
          idempotencyKey: idempotencyKeyOf(headers),
        }),
      ),
  });
}
