import type { AiModelType } from '../../db/catalogs/ai-model.entity.js';
import { aiModelView, defaultAiModel, getAiModel, listAiModels } from '../../db/catalogs/ai-models.service.js';
import { listApprovedTemplates, listChannels, messagingTemplateView } from '../../db/channels/numbers-and-pages.service.js';
import { connectedAccountView, listConnectedAccounts } from '../../db/catalogs/integrations.service.js';
import { listTriggerTypes } from '../../db/catalogs/trigger-types.js';
import { paginate } from '../pagination.js';
import type { RouteRegistry } from '../route-registry.js';
import {
  AiModelDefaultQuerySchema,
  AiModelListQuerySchema,
  AiModelPageSchema,
  AiModelParamsSchema,
  AiModelSchema,
  ChannelsResponseSchema,
  IntegrationListQuerySchema,
  IntegrationPageSchema,
  TemplatePageSchema,
  TriggerTypePageSchema,
  TriggerTypeQuerySchema,
} from '../schemas/catalogs.schema.js';
import { PageQuerySchema } from '../schemas/data.schema.js';

interface PageQuery {
  limit: number;
  cursor?: string;
}

/** Read-only catalogs: AI models (global), channels and integrations (per account), trigger types (built in). */
export function catalogRoutes(api: RouteRegistry): void {
  api.add<unknown, PageQuery & { type?: AiModelType }>({
    method: 'get',
    operationId: 'listAiModels',
    path: '/ai-models',
    scope: 'any',
    tag: 'AI models',
    summary: 'The AI model catalog, optionally of one type; deprecated models are listed with `deprecated: true`',
    query: AiModelListQuerySchema,
    responses: { 200: { description: '{ agentry: [AiModel], nextCursor }', schema: AiModelPageSchema } },
    handler: async ({ em, query }) => paginate((await listAiModels(em, query.type)).map(aiModelView), query.limit, query.cursor),
  });
  // Declared before `/ai-models/:aiModelId`, which would otherwise take `default` as an id.
  api.add<unknown, { type: AiModelType }>({
    method: 'get',
    operationId: 'getDefaultAiModel',
    path: '/ai-models/default',
    scope: 'any',
    tag: 'AI models',
    summary: 'The default model of a type (query `type` is required)',
    query: AiModelDefaultQuerySchema,
    responses: { 200: { description: 'The default AiModel of the type', schema: AiModelSchema } },
    handler: async ({ em, query }) => aiModelView(await defaultAiModel(em, query.type)),
  });
  api.add<unknown, Record<string, unknown>, { aiModelId: number }>({
    method: 'get',
    operationId: 'getAiModel',
    path: '/ai-models/:aiModelId',
    scope: 'any',
    tag: 'AI models',
    summary: 'One AI model',
    params: AiModelParamsSchema,
    responses: { 200: { description: 'The AiModel', schema: AiModelSchema }, 404: { description: 'Unknown model id' } },
    handler: async ({ em, params }) => aiModelView(await getAiModel(em, params.aiModelId)),
  });

  api.add({
    method: 'get',
    operationId: 'listChannels',
    path: '/channels',
    scope: 'any',
    tag: 'Channels',
    summary:
      'Connected channels of the account as `{ agentry: { numbers: [...], socialAccounts: [...] } }`: messaging ' +
      'numbers (with `canSendMessages` and the owning agent `assistantId`) and social accounts with their pages',
    responses: { 200: { description: 'Numbers and social accounts', schema: ChannelsResponseSchema } },
    handler: async ({ auth, em }) => ({ agentry: await listChannels(em, auth.account.id) }),
  });
  api.add<unknown, PageQuery>({
    method: 'get',
    operationId: 'listMessagingTemplates',
    path: '/channels/messaging/templates',
    scope: 'any',
    tag: 'Channels',
    summary: 'The APPROVED message templates of the account (pending and rejected ones cannot be sent and are not listed)',
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [MessagingTemplate], nextCursor }', schema: TemplatePageSchema } },
    handler: async ({ auth, em, query }) =>
      paginate((await listApprovedTemplates(em, auth.account.id)).map(messagingTemplateView), query.limit, query.cursor),
  });

  api.add<unknown, PageQuery & { toolkit?: string }>({
    method: 'get',
    operationId: 'listIntegrations',
    path: '/integrations',
    scope: 'U',
    tag: 'Integrations',
    summary: 'Connected third-party accounts; `id` is the `connectedAccountId` of nodes (optional `toolkit` filter)',
    query: IntegrationListQuerySchema,
    responses: { 200: { description: '{ agentry: [ConnectedAccount], nextCursor }', schema: IntegrationPageSchema } },
    handler: async ({ auth, em, query }) =>
      paginate((await listConnectedAccounts(em, auth.account.id, query.toolkit)).map(connectedAccountView), query.limit, query.cursor),
  });
  api.add<unknown, PageQuery & { toolkit?: string }>({
    method: 'get',
    operationId: 'listTriggerTypes',
    path: '/integrations/trigger-types',
    scope: 'U',
    tag: 'Integrations',
    summary: 'Third-party events an EXTERNAL_TRIGGER node can subscribe to, with their config fields (optional `toolkit` filter, case-insensitive)',
    query: TriggerTypeQuerySchema,
    responses: { 200: { description: '{ agentry: [TriggerType], nextCursor }', schema: TriggerTypePageSchema } },
    handler: ({ query }) => paginate(listTriggerTypes(query.toolkit), query.limit, query.cursor),
  });
}
