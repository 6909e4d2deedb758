/** Saved views of an Object or Table (record-type-scoped views of Objects: record-types.routes.ts) and their aggregations. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { findTable } from '../../../db/tables/table-lookups.js';
import { createView, deleteView, findView, listViews, updateView, type ViewInput, type ViewPatch } from '../../../db/tables/views.service.js';
import { paginate } from '../../pagination.js';
import type { RouteRegistry } from '../../route-registry.js';
import { PageQuerySchema, ViewCreateSchema, ViewPatchSchema } from '../../schemas/data.schema.js';
import { nameParam, paramsWith, type DataSurface, schemaLock } from './surface.js';
import { viewAggregationRoutes } from './view-aggregations.routes.js';
import { ViewPageSchema, ViewSchema } from '../../schemas/data-responses.schema.js';

type Page = { limit: number; cursor?: string };

export function viewRoutes(api: RouteRegistry, s: DataSurface): void {
  const { base, tag } = s;
  const table = (em: EntityManager, accountId: number, name: string) => findTable(em, accountId, s.kind, name);
  api.resource<{ name: string; viewId: number }>(`${base}/:name/views/:viewId`, async (em, accountId, p) =>
    findView(em, await table(em, accountId, p.name), p.viewId),
  );

  api.add<unknown, Page>({
    method: 'get',
    operationId: `list${s.noun}Views`,
    path: `${base}/:name/views`,
    scope: 'any',
    tag,
    summary: `Saved views of ${s.kind === 'OBJECT' ? 'an Object' : 'a Table'}`,
    params: nameParam,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [View], nextCursor }', schema: ViewPageSchema } },
    handler: async ({ auth, em, params, query }) =>
      paginate(await listViews(em, await table(em, auth.account.id, params.name)), query.limit, query.cursor),
  });
  api.add<ViewInput>({
    method: 'post',
    operationId: `create${s.noun}View`,
    path: `${base}/:name/views`,
    scope: 'U',
    tag,
    summary: 'Saves a view: filter, sort, visible fields',
    params: nameParam,
    body: ViewCreateSchema,
    status: 201,
    responses: { 201: { description: 'View', schema: ViewSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => createView(em, await table(em, auth.account.id, params.name), body),
  });
  api.add<ViewPatch, unknown, { name: string; viewId: number }>({
    method: 'patch',
    operationId: `update${s.noun}View`,
    path: `${base}/:name/views/:viewId`,
    scope: 'U',
    tag,
    summary: 'Changes a view',
    params: paramsWith('viewId'),
    body: ViewPatchSchema,
    responses: { 200: { description: 'View', schema: ViewSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => {
      const t = await table(em, auth.account.id, params.name);
      return updateView(em, t, await findView(em, t, params.viewId), body);
    },
  });
  api.add<unknown, unknown, { name: string; viewId: number }>({
    method: 'delete',
    operationId: `delete${s.noun}View`,
    path: `${base}/:name/views/:viewId`,
    scope: 'U',
    tag,
    summary: 'Deletes a view',
    params: paramsWith('viewId'),
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    lock: schemaLock,
    handler: async ({ auth, em, params }) => {
      const t = await table(em, auth.account.id, params.name);
      await deleteView(em, await findView(em, t, params.viewId));
    },
  });
  viewAggregationRoutes(api, s);
}
