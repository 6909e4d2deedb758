/** Aggregations of saved views, for Objects and Tables alike. */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  computeAggregations,
  createAggregation,
  deleteAggregation,
  findAggregation,
  listAggregations,
  updateAggregation,
  type AggregationInput,
  type ComputeQuery,
} from '../../../db/tables/aggregations.service.js';
import { findTable } from '../../../db/tables/table-lookups.js';
import { findView } from '../../../db/tables/views.service.js';
import { paginate } from '../../pagination.js';
import type { RouteRegistry } from '../../route-registry.js';
import { AggregationComputeSchema, AggregationCreateSchema, AggregationPatchSchema, PageQuerySchema } from '../../schemas/data.schema.js';
import { paramsWith, type DataSurface, schemaLock } from './surface.js';
import { AggregationPageSchema, AggregationResultSchema, AggregationSchema } from '../../schemas/data-responses.schema.js';

export function viewAggregationRoutes(api: RouteRegistry, s: DataSurface): void {
  const { tag } = s;
  const base = `${s.base}/:name/views/:viewId/aggregations`;
  const viewOf = async (em: EntityManager, accountId: number, name: string, viewId: number) => {
    const table = await findTable(em, accountId, s.kind, name);
    return { table, view: await findView(em, table, viewId) };
  };
  api.add<unknown, { limit: number; cursor?: string }, { name: string; viewId: number }>({
    method: 'get',
    operationId: `list${s.noun}ViewAggregations`,
    path: base,
    scope: 'any',
    tag,
    summary: 'Aggregations of a view',
    params: paramsWith('viewId'),
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [Aggregation], nextCursor }', schema: AggregationPageSchema } },
    handler: async ({ auth, em, params, query }) => {
      const { view } = await viewOf(em, auth.account.id, params.name, params.viewId);
      return paginate(await listAggregations(em, view), query.limit, query.cursor);
    },
  });
  api.add<AggregationInput, unknown, { name: string; viewId: number }>({
    method: 'post',
    operationId: `create${s.noun}ViewAggregation`,
    path: base,
    scope: 'U',
    tag,
    summary: 'Adds an aggregation (one per field of the view)',
    params: paramsWith('viewId'),
    body: AggregationCreateSchema,
    status: 201,
    responses: { 201: { description: 'Aggregation', schema: AggregationSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => {
      const { table, view } = await viewOf(em, auth.account.id, params.name, params.viewId);
      return createAggregation(em, table, view, body);
    },
  });
  api.add<ComputeQuery, unknown, { name: string; viewId: number }>({
    method: 'post',
    operationId: `compute${s.noun}ViewAggregations`,
    path: `${base}/compute`,
    scope: 'any',
    tag,
    summary: 'Computes the aggregations over the rows matching the view (or the given filter and search), in one statement',
    params: paramsWith('viewId'),
    body: AggregationComputeSchema,
    responses: { 200: { description: '{ rows, agentry: [Aggregation with value] }', schema: AggregationResultSchema } },
    handler: async ({ auth, em, params, body }) => {
      const { table, view } = await viewOf(em, auth.account.id, params.name, params.viewId);
      return computeAggregations(em, table, view, body);
    },
  });
  api.add<{ operation: string }, unknown, { name: string; viewId: number; aggId: number }>({
    method: 'patch',
    operationId: `update${s.noun}ViewAggregation`,
    path: `${base}/:aggId`,
    scope: 'U',
    tag,
    summary: 'Changes the operation of an aggregation',
    params: paramsWith('viewId', 'aggId'),
    body: AggregationPatchSchema,
    responses: { 200: { description: 'Aggregation', schema: AggregationSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => {
      const { table, view } = await viewOf(em, auth.account.id, params.name, params.viewId);
      return updateAggregation(em, table, await findAggregation(em, view, params.aggId), body);
    },
  });
  api.add<unknown, unknown, { name: string; viewId: number; aggId: number }>({
    method: 'delete',
    operationId: `delete${s.noun}ViewAggregation`,
    path: `${base}/:aggId`,
    scope: 'U',
    tag,
    summary: 'Deletes an aggregation',
    params: paramsWith('viewId', 'aggId'),
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    lock: schemaLock,
    handler: async ({ auth, em, params }) => {
      const { view } = await viewOf(em, auth.account.id, params.name, params.viewId);
      await deleteAggregation(em, await findAggregation(em, view, params.aggId));
    },
  });
}
