/**
 * `GET /integrations/trigger-resources`: values a trigger config field can take (labels, repositories, channels…),
 * looked up by the trigger provider in one of the account's connected accounts.
 */
import type { TriggerProvider } from '../../lib/triggers/trigger-provider.js';
import { findConnectedAccount } from '../../db/catalogs/integrations.service.js';
import { TRIGGER_TYPES } from '../../db/catalogs/trigger-types.js';
import { listTriggerResources } from '../../db/automations/external-triggers.js';
import { NotFoundError } from '../../lib/errors.js';
import { paginate } from '../pagination.js';
import type { RouteRegistry } from '../route-registry.js';
import { PageQuerySchema } from '../schemas/data.schema.js';
import type { JsonSchema } from '../validation.js';

/** Every `resourceType` a config field of the trigger catalog declares. */
const RESOURCE_TYPES = [...new Set(TRIGGER_TYPES.flatMap((t) => t.configFields.flatMap((f) => (f.resourceType ? [f.resourceType] : []))))].sort();

const TriggerResourceQuerySchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['resourceType', 'connectedAccountId'],
  properties: {
    resourceType: {
      type: 'string',
      enum: RESOURCE_TYPES,
      description: 'The `resourceType` of a trigger config field (GET /integrations/trigger-types)',
    },
    connectedAccountId: { type: 'integer', minimum: 1, maximum: 2147483647, description: 'A connected account of the account (GET /integrations)' },
    parent: { type: 'string', minLength: 1, maxLength: 500, description: 'Id of the enclosing resource, to browse nested resources' },
    ...(PageQuerySchema.properties as Record<string, JsonSchema>),
  },
};

const TriggerResourcePageSchema: JsonSchema = {
  $id: 'TriggerResourcePage',
  type: 'object',
  required: ['agentry', 'nextCursor'],
  additionalProperties: false,
  properties: {
    agentry: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'hasChildren'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', description: 'The value to put in the config field' },
          name: { type: 'string' },
          hasChildren: { type: 'boolean', description: 'true: pass `id` as `parent` to list what it contains' },
        },
      },
    },
    nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page' },
  },
};

interface TriggerResourceQuery {
  resourceType: string;
  connectedAccountId: number;
  parent?: string;
  limit: number;
  cursor?: string;
}

export function triggerResourceRoutes(api: RouteRegistry, triggers: TriggerProvider | undefined): void {
  api.add<unknown, TriggerResourceQuery>({
    method: 'get',
    operationId: 'listTriggerResources',
    path: '/integrations/trigger-resources',
    scope: 'U',
    tag: 'Integrations',
    summary: 'Resources of a connected account that a trigger config field can name, from the trigger provider (`parent` browses nested ones)',
    query: TriggerResourceQuerySchema,
    responses: {
      200: { description: '{ agentry: [{ id, name, hasChildren }], nextCursor }', schema: TriggerResourcePageSchema },
      404: { description: 'The connected account does not exist or belongs to another account' },
      502: { description: 'The trigger provider failed or could not be reached' },
    },
    handler: async ({ auth, em, query }) => {
      const connected = await findConnectedAccount(em, auth.account.id, query.connectedAccountId);
      if (!connected) throw new NotFoundError(`Connected account ${query.connectedAccountId} not found`);
      const resources = await listTriggerResources(triggers, {
        connectedAccountExternalId: connected.externalId,
        resourceType: query.resourceType,
        ...(query.parent !== undefined && { parent: query.parent }),
      });
      return paginate(resources, query.limit, query.cursor);
    },
  });
}
