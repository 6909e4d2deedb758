import type { FileStore } from '../../../db/tables/files/file-store.js';
import { countRows, listRows, type RowQuery } from '../../../db/tables/rows-query.service.js';
import { createRowsOnce, deleteRow, getRow, rowInputOf, tableContext, updateRow } from '../../../db/tables/rows.service.js';
import type { RouteRegistry } from '../../route-registry.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_HEADER_SCHEMA } from '../../../lib/idempotency.js';
import { IDEMPOTENCY_RESPONSES, idempotencyKeyOf, idempotentReply } from '../../idempotency.js';
import { RowBodySchema, RowsBulkSchema, RowsCountSchema, RowsListSchema } from '../../schemas/data.schema.js';
import { nameParam, type DataSurface } from './surface.js';
import { RowCountSchema, RowListSchema, RowPageSchema, RowSchema } from '../../schemas/data-responses.schema.js';

const rowParams = {
  type: 'object',
  required: ['name', 'id'],
  properties: { ...nameParam.properties, id: { type: 'string', minLength: 1, maxLength: 64 } },
};

export function rowRoutes(api: RouteRegistry, s: DataSurface, files: FileStore): void {
  const noun = s.kind === 'OBJECT' ? 'record' : 'row';
  api.add<RowQuery>({
    method: 'post',
    operationId: `list${s.rows}`,
    path: `${s.base}/:name/rows/list`,
    scope: 'any',
    tag: s.tag,
    summary: `Lists ${noun}s: filter, sort, full-text search, record type, cursor pagination`,
    params: nameParam,
    body: RowsListSchema,
    responses: { 200: { description: '{ agentry: [Row], nextCursor }', schema: RowPageSchema } },
    handler: async ({ auth, em, params, body }) => listRows(em, await tableContext(em, auth.account.id, s.kind, params.name), body),
  });
  api.add<RowQuery>({
    method: 'post',
    operationId: `count${s.rows}`,
    path: `${s.base}/:name/rows/count`,
    scope: 'any',
    tag: s.tag,
    summary: `Counts ${noun}s matching the same query as rows/list`,
    params: nameParam,
    body: RowsCountSchema,
    responses: { 200: { description: '{ count }', schema: RowCountSchema } },
    handler: async ({ auth, em, params, body }) => ({
      count: await countRows(em, await tableContext(em, auth.account.id, s.kind, params.name), body),
    }),
  });
  api.add<Record<string, unknown>>({
    method: 'post',
    operationId: `create${s.row}`,
    path: `${s.base}/:name/rows`,
    scope: 'U',
    tag: s.tag,
    summary: `Creates one ${noun} (values flat or under data)`,
    params: nameParam,
    headers: IDEMPOTENCY_HEADER_SCHEMA,
    body: RowBodySchema,
    largeBody: true,
    status: 201,
    responses: {
      201: {
        description: `Row (the first answer again, with \`Idempotent-Replayed: true\`, for a repeated ${IDEMPOTENCY_HEADER})`,
        schema: RowSchema,
      },
      ...IDEMPOTENCY_RESPONSES,
    },
    handler: async ({ auth, em, params, body, headers }) => {
      const table = await tableContext(em, auth.account.id, s.kind, params.name);
      return idempotentReply(await createRowsOnce(em, table, [rowInputOf(body)], { key: idempotencyKeyOf(headers), body }, ([row]) => row!));
    },
  });
  api.add<{ rows: Record<string, unknown>[] }>({
    method: 'post',
    operationId: `create${s.rows}`,
    path: `${s.base}/:name/rows/bulk`,
    scope: 'U',
    tag: s.tag,
    summary: `Creates up to 5000 ${noun}s, all or nothing`,
    params: nameParam,
    headers: IDEMPOTENCY_HEADER_SCHEMA,
    body: RowsBulkSchema,
    largeBody: true,
    status: 201,
    responses: {
      201: { description: `{ agentry: [Row] } (the first answer again for a repeated ${IDEMPOTENCY_HEADER})`, schema: RowListSchema },
      ...IDEMPOTENCY_RESPONSES,
    },
    handler: async ({ auth, em, params, body, headers }) => {
      const table = await tableContext(em, auth.account.id, s.kind, params.name);
      return idempotentReply(
        await createRowsOnce(em, table, body.rows.map(rowInputOf), { key: idempotencyKeyOf(headers), body }, (rows) => ({ agentry: rows })),
      );
    },
  });
  api.add<unknown, unknown, { name: string; id: string }>({
    method: 'get',
    operationId: `get${s.row}`,
    path: `${s.base}/:name/rows/:id`,
    scope: 'any',
    tag: s.tag,
    summary: `One ${noun}`,
    params: rowParams,
    responses: { 200: { description: 'Row', schema: RowSchema } },
    handler: async ({ auth, em, params }) => getRow(em, await tableContext(em, auth.account.id, s.kind, params.name), params.id),
  });
  api.add<Record<string, unknown>, unknown, { name: string; id: string }>({
    method: 'patch',
    operationId: `update${s.row}`,
    path: `${s.base}/:name/rows/:id`,
    scope: 'U',
    tag: s.tag,
    summary: `Changes the given fields of a ${noun} (flat or under data; recordTypeId changes the record type)`,
    params: rowParams,
    body: RowBodySchema,
    largeBody: true,
    responses: { 200: { description: 'Row', schema: RowSchema } },
    handler: async ({ auth, em, params, body }) =>
      updateRow(em, await tableContext(em, auth.account.id, s.kind, params.name), params.id, rowInputOf(body)),
  });
  api.add<unknown, unknown, { name: string; id: string }>({
    method: 'delete',
    operationId: `delete${s.row}`,
    path: `${s.base}/:name/rows/:id`,
    scope: 'U',
    tag: s.tag,
    summary: `Deletes a ${noun}`,
    params: rowParams,
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ auth, em, params }) => {
      const fileKeys = await deleteRow(em, await tableContext(em, auth.account.id, s.kind, params.name), params.id);
      await files.remove(fileKeys);
    },
  });
}
