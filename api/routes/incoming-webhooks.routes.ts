import {
  acceptDelivery,
  createIncomingWebhook,
  webhookView,
  type IncomingWebhookInput,
} from '../../db/services/incoming-webhooks.service.js';
import type { RouteRegistry } from '../routes.js';
import { IncomingWebhookCreateSchema, IncomingWebhookSchema, WebhookDeliverySchema } from '../schemas/incoming-webhooks.schema.js';

/** `POST /public/v1/incoming-webhooks`; `publicBaseUrl` is the origin the webhook URLs handed out start with. */
export function incomingWebhookRoutes(api: RouteRegistry, publicBaseUrl: string): void {
  api.add<IncomingWebhookInput>({
    method: 'post',
    path: '/incoming-webhooks',
    scope: 'U',
    tag: 'Incoming webhooks',
    summary: 'Creates an incoming webhook; the access token (when useAuthentication is true) is returned only here',
    body: IncomingWebhookCreateSchema,
    status: 201,
    responses: { 201: { description: 'The webhook with its URL and, when authenticated, its access token', schema: IncomingWebhookSchema } },
    handler: async ({ auth, em, body }) => {
      const { webhook, accessToken } = await createIncomingWebhook(em, auth.account.id, body);
      return webhookView(webhook, publicBaseUrl, accessToken);
    },
  });
}

/** `POST /webhooks/:webhookId` (outside `/public/v1`, no API key): the call external systems make. */
export function inboundWebhookRoutes(root: RouteRegistry): void {
  root.add<unknown, Record<string, unknown>, { webhookId: string }>({
    method: 'post',
    path: '/webhooks/:webhookId',
    scope: 'public',
    jsonBody: 'any',
    status: 202,
    tag: 'Incoming webhooks',
    summary: 'Delivers any JSON value to a webhook; with useAuthentication the access token comes as Bearer',
    responses: {
      202: { description: 'Recorded; subscribed runs start without being waited for', schema: WebhookDeliverySchema },
      401: { description: 'Missing or wrong access token' },
      404: { description: 'Unknown or inactive webhook' },
      413: { description: 'Body over the size limit' },
      415: { description: 'Body is not JSON' },
    },
    handler: ({ em, params, headers, body }) => acceptDelivery(em, params.webhookId, headers.authorization, body),
  });
}
