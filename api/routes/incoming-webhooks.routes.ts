import {
  createIncomingWebhook,
  deleteIncomingWebhook,
  listIncomingWebhooks,
  requireWebhook,
  rotateWebhookToken,
  updateIncomingWebhook,
  webhookView,
  type IncomingWebhookInput,
  type IncomingWebhookPatch,
} from '../../db/automations/incoming-webhooks.service.js';
import { acceptWebhookCall } from '../../db/automations/webhook-calls.js';
import { IDEMPOTENCY_HEADER_SCHEMA } from '../../lib/idempotency.js';
import { IDEMPOTENCY_RESPONSES, idempotencyKeyOf, idempotentReply } from '../idempotency.js';
import { paginate } from '../pagination.js';
import type { RouteRegistry } from '../route-registry.js';
import { PageQuerySchema, pageSchema } from '../schemas/common.schema.js';
import {
  IncomingWebhookCreateSchema,
  IncomingWebhookSchema,
  IncomingWebhookUpdateSchema,
  WebhookDeletedSchema,
  WebhookDeliverySchema,
  WebhookIdParams,
} from '../schemas/incoming-webhooks.schema.js';

const tag = 'Incoming webhooks';
type Id = { webhookId: string };

/** `POST /public/v1/incoming-webhooks`; `publicBaseUrl` is the origin the webhook URLs handed out start with. */
export function incomingWebhookRoutes(api: RouteRegistry, publicBaseUrl: string): void {
  api.resource<Id>('/incoming-webhooks/:webhookId', (em, accountId, { webhookId }) => requireWebhook(em, accountId, webhookId));
  api.add<IncomingWebhookInput>({
    method: 'post',
    operationId: 'createIncomingWebhook',
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
  // Extensions of SPEC.md: without them isActive could never be set and a webhook never removed.
  api.add<unknown, { limit: number; cursor?: string }>({
    method: 'get',
    operationId: 'listIncomingWebhooks',
    path: '/incoming-webhooks',
    scope: 'any',
    tag,
    summary: "The account's incoming webhooks, oldest first (extension)",
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [incoming webhook], nextCursor }', schema: pageSchema(IncomingWebhookSchema) } },
    handler: async ({ auth, em, query }) =>
      paginate(
        (await listIncomingWebhooks(em, auth.account.id)).map((w) => webhookView(w, publicBaseUrl)),
        query.limit,
        query.cursor,
      ),
  });
  api.add<unknown, unknown, Id>({
    method: 'get',
    operationId: 'getIncomingWebhook',
    path: '/incoming-webhooks/:webhookId',
    scope: 'any',
    tag,
    summary: 'One incoming webhook, without its token (extension)',
    params: WebhookIdParams,
    responses: { 200: { description: 'The webhook', schema: IncomingWebhookSchema } },
    handler: async ({ auth, em, params }) => webhookView(await requireWebhook(em, auth.account.id, params.webhookId), publicBaseUrl),
  });
  api.add<IncomingWebhookPatch, unknown, Id>({
    method: 'patch',
    operationId: 'updateIncomingWebhook',
    path: '/incoming-webhooks/:webhookId',
    scope: 'U',
    tag,
    summary: 'Changes name, description, isActive or useAuthentication; turning authentication on returns a new token once (extension)',
    params: WebhookIdParams,
    body: IncomingWebhookUpdateSchema,
    responses: { 200: { description: 'The webhook', schema: IncomingWebhookSchema } },
    handler: async ({ auth, em, params, body }) => {
      const { webhook, accessToken } = await updateIncomingWebhook(em, auth.account.id, params.webhookId, body);
      return webhookView(webhook, publicBaseUrl, accessToken);
    },
  });
  api.add<unknown, unknown, Id>({
    method: 'post',
    operationId: 'rotateIncomingWebhookToken',
    path: '/incoming-webhooks/:webhookId/rotate-token',
    scope: 'U',
    tag,
    summary: 'Replaces the access token, returned once; the previous token stops working at once (extension)',
    params: WebhookIdParams,
    responses: {
      200: { description: 'The webhook with its new accessToken', schema: IncomingWebhookSchema },
      409: { description: 'The webhook does not use authentication' },
    },
    handler: async ({ auth, em, params }) => {
      const { webhook, accessToken } = await rotateWebhookToken(em, auth.account.id, params.webhookId);
      return webhookView(webhook, publicBaseUrl, accessToken);
    },
  });
  api.add<unknown, unknown, Id>({
    method: 'delete',
    operationId: 'deleteIncomingWebhook',
    path: '/incoming-webhooks/:webhookId',
    scope: 'U',
    tag,
    summary: 'Deletes the webhook (calls answer 404 from then on) and reports the workflows whose nodes still list it (extension)',
    params: WebhookIdParams,
    responses: { 200: { description: 'What was deleted and what still names it', schema: WebhookDeletedSchema } },
    handler: async ({ auth, em, params }) => deleteIncomingWebhook(em, auth.account.id, params.webhookId),
  });
}

/** `POST /webhooks/:webhookId` (outside `/public/v1`, no API key): the call external systems make. */
export function inboundWebhookRoutes(root: RouteRegistry): void {
  root.add<unknown, Record<string, unknown>, { webhookId: string }>({
    method: 'post',
    operationId: 'callIncomingWebhook',
    path: '/webhooks/:webhookId',
    scope: 'public',
    jsonBody: 'any',
    status: 202,
    tag: 'Incoming webhooks',
    summary:
      'Delivers any JSON value to a webhook; with useAuthentication the access token comes as Bearer; ' +
      'an Idempotency-Key makes retries safe (per webhook, 24 hours)',
    headers: IDEMPOTENCY_HEADER_SCHEMA,
    responses: {
      202: {
        description: 'Recorded (or, for a replayed Idempotency-Key, recorded before); subscribed runs start without being waited for',
        schema: WebhookDeliverySchema,
      },
      400: { description: 'The body is missing or malformed, or the Idempotency-Key is empty or too long' },
      401: { description: 'Missing or wrong access token' },
      404: { description: 'Unknown or inactive webhook' },
      413: { description: 'Body over the size limit' },
      415: { description: 'Body is not JSON' },
      ...IDEMPOTENCY_RESPONSES,
    },
    handler: async ({ em, params, headers, body }) =>
      idempotentReply(await acceptWebhookCall(em, params.webhookId, headers.authorization, body, idempotencyKeyOf(headers))),
  });
}
