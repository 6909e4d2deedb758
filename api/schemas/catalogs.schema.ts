/** Query and response schemas of the read-only catalogs: AI models, channels, integrations, trigger types. */
import { AI_MODEL_TYPES } from '../../db/catalogs/ai-model.entity.js';
import type { JsonSchema } from '../validation.js';
import { PageQuerySchema } from './data.schema.js';
import { strictObject } from './common.schema.js';

const pageProperties = PageQuerySchema.properties as Record<string, JsonSchema>;
const aiModelType = { type: 'string', enum: [...AI_MODEL_TYPES] };
const timestamp = { type: 'string', format: 'date-time' };

const page = (items: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['agentry', 'nextCursor'],
  additionalProperties: false,
  properties: { agentry: { type: 'array', items }, nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page' } },
});

const object = strictObject;

export const AiModelListQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { type: aiModelType, ...pageProperties },
};

export const AiModelDefaultQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: { type: aiModelType },
};

export const AiModelParamsSchema: JsonSchema = {
  type: 'object',
  required: ['aiModelId'],
  properties: { aiModelId: { type: 'integer', description: 'Catalog ids are negative' } },
};

const aiModel = object({
  id: { type: 'integer', description: 'Used as `aiModelId`' },
  name: { type: 'string' },
  description: { type: ['string', 'null'] },
  type: aiModelType,
  aiVendor: { type: 'string', description: 'Uppercase vendor code' },
  reasoningModel: { type: 'boolean', description: 'Thinking-tier model' },
  creditsPerMessage: { type: 'number' },
  isDefault: { type: 'boolean', description: 'The default of its type' },
  order: { type: 'integer', description: 'UI display order within the type' },
  analyticsColor: { type: 'string', pattern: '^#[0-9A-Fa-f]{6}$' },
  externalId: { type: 'string', description: 'Provider model id; a node may send it as `model` together with `aiVendor`' },
  deprecated: { type: 'boolean', description: 'Listed, but refused where a model is referenced' },
});

export const AiModelSchema: JsonSchema = { $id: 'AiModel', ...aiModel };
export const AiModelPageSchema: JsonSchema = { $id: 'AiModelPage', ...page(aiModel) };

const messagingNumber = object({
  id: { type: 'integer' },
  phoneNumber: { type: 'string', description: 'E.164' },
  displayName: { type: 'string' },
  phoneNumberId: { type: 'string', description: 'Business number id; SEND_MESSAGING_MESSAGE `phoneNumberId`' },
  assistantId: { type: ['string', 'null'], format: 'uuid', description: 'Agent the number belongs to; nodes may only use numbers that have one' },
  canSendMessages: { type: 'boolean', description: 'Use a number whose canSendMessages is true' },
  createdAt: timestamp,
});

const socialAccount = object({
  id: { type: 'integer' },
  platform: { type: 'string', description: 'INSTAGRAM, FACEBOOK, …' },
  name: { type: 'string' },
  externalId: { type: 'string' },
  pages: { type: 'array', items: object({ id: { type: 'string' }, name: { type: 'string' } }) },
  createdAt: timestamp,
});

export const ChannelsResponseSchema: JsonSchema = {
  $id: 'Channels',
  ...object({
    agentry: object({ numbers: { type: 'array', items: messagingNumber }, socialAccounts: { type: 'array', items: socialAccount } }),
  }),
};

const parameters = {
  type: 'array',
  items: { type: 'object', required: ['id'], properties: { id: { type: 'string' }, example: { type: 'string' } } },
};

const template = object({
  id: { type: 'integer' },
  name: { type: 'string', description: 'The `template` of SEND_MESSAGING_MESSAGE nodes' },
  language: { type: 'string' },
  category: { type: 'string', enum: ['MARKETING', 'UTILITY', 'AUTHENTICATION'] },
  status: { type: 'string', enum: ['APPROVED'] },
  components: {
    type: 'object',
    description: 'Parameters per part; their ids are the keys of `templateVariables.header`, `.body` and `.buttons`',
    required: ['body'],
    properties: {
      header: { oneOf: [{ type: 'object', properties: { text: { type: 'string' }, parameters } }, { type: 'null' }] },
      body: { type: 'object', properties: { text: { type: 'string' }, parameters } },
      buttons: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, text: { type: 'string' }, parameters } } },
    },
  },
  createdAt: timestamp,
});

export const TemplatePageSchema: JsonSchema = { $id: 'MessagingTemplatePage', ...page(template) };

export const IntegrationListQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { toolkit: { type: 'string', maxLength: 64, description: 'Only this toolkit (case-insensitive)' }, ...pageProperties },
};

const connectedAccount = object({
  id: { type: 'integer', description: 'Used as `connectedAccountId`' },
  toolkit: { type: 'string', description: 'Uppercase toolkit: GMAIL, SLACK, HUBSPOT, GITHUB, …' },
  label: { type: 'string' },
  externalId: { type: 'string', description: "The integration provider's id of the connection" },
  status: { type: 'string', enum: ['ACTIVE', 'EXPIRED'] },
  createdAt: timestamp,
});

export const IntegrationPageSchema: JsonSchema = { $id: 'IntegrationPage', ...page(connectedAccount) };

export const TriggerTypeQuerySchema: JsonSchema = IntegrationListQuerySchema;

const configField = {
  type: 'object',
  required: ['name', 'type', 'description', 'required', 'userConfigurable'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    type: { type: 'string', enum: ['string', 'number', 'boolean'] },
    description: { type: 'string' },
    required: { type: 'boolean' },
    userConfigurable: { type: 'boolean', description: 'false: managed by the platform (e.g. `interval`) and ignored when sent' },
    resourceType: { type: 'string', description: 'Present when the value is an id to look up in the connected account' },
  },
};

const triggerType = object({
  slug: { type: 'string', description: 'The node `triggerSlug`' },
  toolkit: { type: 'string', description: 'The node `triggerToolkit`' },
  name: { type: 'string' },
  description: { type: 'string' },
  configFields: { type: 'array', items: configField },
});

export const TriggerTypePageSchema: JsonSchema = { $id: 'TriggerTypePage', ...page(triggerType) };
