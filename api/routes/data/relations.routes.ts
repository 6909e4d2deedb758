import { changeLinks, linkedRows, sourceRows } from '../../../db/tables/relations.service.js';
import { tableContext } from '../../../db/tables/rows.service.js';
import { paginate } from '../../pagination.js';
import type { RouteRegistry } from '../../route-registry.js';
import { LinkSchema, PageQuerySchema } from '../../schemas/data.schema.js';
import { OBJECTS } from './surface.js';
import { RowPageSchema, RowSchema } from '../../schemas/data-responses.schema.js';

const str = { type: 'string', minLength: 1, maxLength: 255 };
const rowRelationParams = { type: 'object', required: ['name', 'id', 'relation'], properties: { name: str, id: str, relation: str } };
const targetParams = { type: 'object', required: ['name', 'relation', 'targetId'], properties: { name: str, relation: str, targetId: str } };

type Page = { limit: number; cursor?: string };

export function relationRoutes(api: RouteRegistry): void {
  const { base, tag, kind } = OBJECTS;
  api.add<unknown, Page, { name: string; id: string; relation: string }>({
    method: 'get',
    operationId: 'listRelatedRecords',
    path: `${base}/:name/rows/:id/relations/:relation`,
    scope: 'any',
    tag,
    summary: 'Records linked from this record through the relation field (id or name)',
    params: rowRelationParams,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [Row], nextCursor }', schema: RowPageSchema } },
    handler: async ({ auth, em, params, query }) =>
      paginate(
        await linkedRows(em, await tableContext(em, auth.account.id, kind, params.name), params.id, params.relation),
        query.limit,
        query.cursor,
      ),
  });
  api.add<unknown, Page, { name: string; relation: string; targetId: string }>({
    method: 'get',
    operationId: 'listRecordsLinkedTo',
    path: `${base}/:name/relations/:relation/target/:targetId`,
    scope: 'any',
    tag,
    summary: 'Records of this Object that link to the target record through the relation',
    params: targetParams,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [Row], nextCursor }', schema: RowPageSchema } },
    handler: async ({ auth, em, params, query }) =>
      paginate(
        await sourceRows(em, await tableContext(em, auth.account.id, kind, params.name), params.relation, params.targetId),
        query.limit,
        query.cursor,
      ),
  });
  for (const link of [true, false]) {
    api.add<{ targetIds: string[] }, unknown, { name: string; id: string; relation: string }>({
      method: 'post',
      operationId: link ? 'linkRecords' : 'unlinkRecords',
      path: `${base}/:name/rows/:id/relations/:relation/${link ? 'link' : 'unlink'}`,
      scope: 'U',
      tag,
      summary: link ? 'Links target records (they must exist in the related Object)' : 'Unlinks target records',
      params: rowRelationParams,
      body: LinkSchema,
      responses: { 200: { description: 'The record after the change', schema: RowSchema } },
      handler: async ({ auth, em, params, body }) =>
        changeLinks(em, await tableContext(em, auth.account.id, kind, params.name), params.id, params.relation, body.targetIds, link),
    });
  }
}
