import type { JsonSchema } from '../validation.js';

export const IncomingWebhookCreateSchema: JsonSchema = {
  $id: 'IncomingWebhookCreate',
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    description: { type: ['string', 'null'], maxLength: 2000 },
    useAuthentication: { type: 'boolean', default: true, description: 'When true, callers must send the access token as Bearer' },
  },
};

export const IncomingWebhookUpdateSchema: JsonSchema = {
  $id: 'IncomingWebhookUpdate',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    description: { type: ['string', 'null'], maxLength: 2000 },
    isActive: { type: 'boolean', description: 'false: calls to the webhook are answered 404 and dropped' },
    useAuthentication: { type: 'boolean', description: 'Turning it on issues an access token, returned once in this response' },
  },
};

export const WebhookIdParams: JsonSchema = {
  type: 'object',
  required: ['webhookId'],
  properties: { webhookId: { type: 'string', pattern: '^wh_[A-Za-z0-9]{24}$' } },
};

export const WebhookDeletedSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'referencedBy'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    referencedBy: {
      type: 'array',
      description: 'Workflows whose draft or live graph still lists the deleted webhook: remove it from those nodes',
      items: {
        type: 'object',
        required: ['workflowId', 'name', 'nodeIds'],
        properties: { workflowId: { type: 'integer' }, name: { type: 'string' }, nodeIds: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
};

export const IncomingWebhookSchema: JsonSchema = {
  $id: 'IncomingWebhook',
  type: 'object',
  required: ['id', 'name', 'description', 'url', 'isActive', 'useAuthentication', 'createdAt', 'updatedAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^wh_[A-Za-z0-9]{24}$' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    url: { type: 'string', format: 'uri', description: 'POST JSON here; outside /public/v1' },
    isActive: { type: 'boolean' },
    useAuthentication: { type: 'boolean' },
    accessToken: {
      type: 'string',
      minLength: 64,
      maxLength: 64,
      description: 'Only in the answer that issues it (create, turning useAuthentication on, rotate-token); stored only as a hash',
    },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

export const WebhookDeliverySchema: JsonSchema = {
  type: 'object',
  required: ['eventId'],
  additionalProperties: false,
  properties: { eventId: { type: 'string', description: 'Id of the INCOMING_WEBHOOK event that starts the subscribed runs' } },
};
