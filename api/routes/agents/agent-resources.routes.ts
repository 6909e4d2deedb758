/**
 * `/custom-tools`, `/playbooks`, `/knowledge-bases` (extensions; USER keys to write): the account's resources that
 * agent settings and flow nodes reference by id. The three kinds share one route set. A knowledge base's
 * `documents[]` are indexed as its INLINE documents (`knowledge.routes.ts` has the others).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentResource, AgentResourceKind } from '../../../db/agents/agent-resource.entity.js';
import { syncKnowledgeBase } from '../../../db/knowledge/knowledge-documents.service.js';
import { knowledgeLanguage } from '../../../db/knowledge/knowledge-index.js';
import {
  createResource,
  deleteResource,
  findResource,
  listResources,
  resourceView,
  updateResource,
  type ResourceInput,
} from '../../../db/agents/agent-resources.service.js';
import { paginate } from '../../pagination.js';
import type { RouteInput, RouteRegistry } from '../../route-registry.js';
import { CustomToolSchemas, KnowledgeBaseSchemas, PlaybookSchemas, type ResourceSchemas } from '../../schemas/agent-resources.schema.js';
import { page } from '../../schemas/agents.schema.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';

interface ResourceKind {
  kind: AgentResourceKind;
  path: string;
  /** Singular, capitalized: "Custom tool". */
  what: string;
  /** Singular, in its operation ids: `CustomTool` (`listCustomTools`, `getCustomTool`). */
  noun: Capitalize<string>;
  /** The node and setting field that references it. */
  field: string;
  schemas: ResourceSchemas;
  /** What follows a write of the resource, in its transaction (`before`: its values before an update). */
  afterWrite?: (em: EntityManager, resource: AgentResource, before?: Record<string, unknown>) => Promise<void>;
}

const KINDS: ResourceKind[] = [
  { kind: 'CUSTOM_TOOL', path: '/custom-tools', what: 'Custom tool', noun: 'CustomTool', field: 'customToolIds', schemas: CustomToolSchemas },
  { kind: 'PLAYBOOK', path: '/playbooks', what: 'Playbook', noun: 'Playbook', field: 'playbookIds', schemas: PlaybookSchemas },
  {
    kind: 'KNOWLEDGE_BASE',
    path: '/knowledge-bases',
    what: 'Knowledge base',
    noun: 'KnowledgeBase',
    field: 'knowledgeBaseIds',
    schemas: KnowledgeBaseSchemas,
    afterWrite: (em, kb, before) => syncKnowledgeBase(em, kb, before && knowledgeLanguage(before)),
  },
];

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'integer', minimum: 1, maximum: 2147483647 } } };

function kindRoutes(api: RouteRegistry, { kind, path, what, noun, field, schemas, afterWrite }: ResourceKind): void {
  const tag = `${what}s (extension)`;
  const one = { description: what, schema: schemas.view };
  const lock = ({ id }: { id: number }) => `${kind}:${id}`;
  api.resource<{ id: number }>(`${path}/:id`, (em, accountId, { id }) => findResource(em, accountId, kind, id, what));
  const read = async ({ auth, em, params }: RouteInput<unknown, unknown, { id: number }>) =>
    resourceView(await findResource(em, auth.account.id, kind, params.id, what));
  api.add<unknown, { limit: number; cursor?: string }>({
    method: 'get',
    operationId: `list${noun}s`,
    path,
    scope: 'any',
    tag,
    summary: `${what}s of the account (extension; their ids go in ${field})`,
    query: PageQuerySchema,
    responses: { 200: { description: `{ agentry: [${what.toLowerCase()}], nextCursor }`, schema: page(schemas.view) } },
    handler: async ({ auth, em, query }) => paginate((await listResources(em, auth.account.id, kind)).map(resourceView), query.limit, query.cursor),
  });
  api.add<ResourceInput>({
    method: 'post',
    operationId: `create${noun}`,
    path,
    scope: 'U',
    tag,
    summary: `Creates a ${what.toLowerCase()} (extension)`,
    body: schemas.create,
    status: 201,
    responses: { 201: one },
    handler: async ({ auth, em, body }) =>
      resourceView(
        await em.transactional(async (tx) => {
          const resource = await createResource(tx, auth.account.id, kind, body);
          await afterWrite?.(tx, resource);
          return resource;
        }),
      ),
  });
  api.add<unknown, unknown, { id: number }>({
    method: 'get',
    operationId: `get${noun}`,
    path: `${path}/:id`,
    scope: 'any',
    tag,
    summary: `One ${what.toLowerCase()}`,
    params: idParams,
    responses: { 200: one },
    etag: true,
    handler: read,
  });
  api.add<Partial<ResourceInput>, unknown, { id: number }>({
    method: 'put',
    operationId: `update${noun}`,
    path: `${path}/:id`,
    scope: 'U',
    tag,
    summary: `Updates the fields sent of a ${what.toLowerCase()}`,
    params: idParams,
    body: schemas.update,
    responses: { 200: one },
    lock,
    etag: read,
    handler: async ({ auth, em, params, body }) => {
      const resource = await findResource(em, auth.account.id, kind, params.id, what);
      const before = { ...resource.values };
      await updateResource(em, resource, body);
      await afterWrite?.(em, resource, before);
      return resourceView(resource);
    },
  });
  api.add<unknown, unknown, { id: number }>({
    method: 'delete',
    operationId: `delete${noun}`,
    path: `${path}/:id`,
    scope: 'U',
    tag,
    summary: `Deletes a ${what.toLowerCase()}`,
    params: idParams,
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    lock,
    handler: async ({ auth, em, params }) => deleteResource(em, await findResource(em, auth.account.id, kind, params.id, what)),
  });
}

export function agentResourceRoutes(api: RouteRegistry): void {
  for (const kind of KINDS) kindRoutes(api, kind);
}
