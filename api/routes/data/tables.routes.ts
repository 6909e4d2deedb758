import { findTable } from '../../../db/tables/table-lookups.js';
import { exportTable } from '../../../db/bundles/table-bundle.js';
import { BundleSchema } from '../../schemas/bundles.schema.js';
import type { FileStore } from '../../../db/tables/files/file-store.js';
import { seedStandardObjects } from '../../../db/tables/standard-objects.js';
import {
  createTable,
  deleteTable,
  describeTable,
  listTables,
  tableSchema,
  updateTable,
  type TableInput,
  type TablePatch,
} from '../../../db/tables/tables.service.js';
import { paginate } from '../../pagination.js';
import type { RouteInput, RouteRegistry } from '../../route-registry.js';
import { PageQuerySchema, TableCreateSchema, TablePatchSchema } from '../../schemas/data.schema.js';
import { nameParam, schemaLock, type DataSurface } from './surface.js';
import { TableDetailSchema, TablePageSchema, TableSchemaSchema } from '../../schemas/data-responses.schema.js';

export function tableRoutes(api: RouteRegistry, s: DataSurface, files: FileStore): void {
  const what = s.kind === 'OBJECT' ? 'Object' : 'Table';
  api.resource<{ name: string }>(`${s.base}/:name`, (em, accountId, { name }) => findTable(em, accountId, s.kind, name));
  const read = async ({ auth, em, params }: RouteInput<unknown, unknown, { name: string }>) =>
    describeTable(em, await findTable(em, auth.account.id, s.kind, params.name));
  api.add<unknown, { limit: number; cursor?: string }>({
    method: 'get',
    operationId: `list${s.noun}s`,
    path: s.base,
    scope: 'any',
    tag: s.tag,
    summary: s.kind === 'OBJECT' ? 'All standard and custom Objects' : 'All Tables',
    query: PageQuerySchema,
    responses: { 200: { description: `{ agentry: [${what}], nextCursor }`, schema: TablePageSchema } },
    handler: async ({ auth, em, query }) => {
      if (s.kind === 'OBJECT') await seedStandardObjects(em, auth.account.id);
      return paginate(await listTables(em, auth.account.id, s.kind), query.limit, query.cursor);
    },
  });
  api.add<TableInput>({
    method: 'post',
    operationId: `create${s.noun}`,
    path: s.base,
    scope: 'U',
    tag: s.tag,
    summary: s.kind === 'OBJECT' ? 'Creates a custom Object (at least one column)' : 'Creates a Table (columns optional)',
    body: TableCreateSchema,
    status: 201,
    responses: { 201: { description: `The new ${what} with its fields`, schema: TableDetailSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, body }) => describeTable(em, await createTable(em, auth.account.id, s.kind, body)),
  });
  api.add<unknown, unknown, { name: string }>({
    method: 'get',
    operationId: `get${s.noun}`,
    path: `${s.base}/:name`,
    scope: 'any',
    tag: s.tag,
    summary: s.kind === 'OBJECT' ? 'The Object with its fields, views and record types' : 'The Table with its fields and views',
    params: nameParam,
    responses: { 200: { description: what, schema: TableDetailSchema } },
    etag: true,
    handler: read,
  });
  api.add<TablePatch, unknown, { name: string }>({
    method: 'patch',
    operationId: `update${s.noun}`,
    path: `${s.base}/:name`,
    scope: 'U',
    tag: s.tag,
    summary: 'Changes display name, emoji, color or description',
    params: nameParam,
    body: TablePatchSchema,
    responses: { 200: { description: what, schema: TableDetailSchema } },
    lock: schemaLock,
    etag: read,
    handler: async ({ auth, em, params, body }) => describeTable(em, await updateTable(em, auth.account.id, s.kind, params.name, body)),
  });
  api.add({
    method: 'delete',
    operationId: `delete${s.noun}`,
    path: `${s.base}/:name`,
    scope: 'U',
    tag: s.tag,
    summary: s.kind === 'OBJECT' ? 'Deletes a custom Object and its records (standard Objects cannot be deleted)' : 'Deletes a Table and its rows',
    params: nameParam,
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ auth, em, params }) => {
      await files.remove(await deleteTable(em, auth.account.id, s.kind, params.name));
    },
  });
  api.add({
    method: 'get',
    operationId: `get${s.noun}Schema`,
    path: `${s.base}/:name/schema`,
    scope: 'any',
    tag: s.tag,
    summary: 'Fields, types and formats only',
    params: nameParam,
    responses: { 200: { description: 'Schema', schema: TableSchemaSchema } },
    handler: async ({ auth, em, params }) => tableSchema(em, await findTable(em, auth.account.id, s.kind, params.name)),
  });
  api.add<unknown, unknown, { name: string }>({
    method: 'get',
    operationId: `export${s.noun}`,
    path: `${s.base}/:name/export`,
    scope: 'any',
    tag: s.tag,
    summary:
      'Its schema (fields, types, formats, options, record types) as a bundle file: sorted keys and a checksum, to keep in git, compare ' +
      'or import elsewhere (POST /imports; docs/versions-and-bundles.md)',
    params: nameParam,
    responses: { 200: { description: 'The bundle', schema: BundleSchema } },
    handler: async ({ auth, em, params }) => exportTable(em, auth.account.id, s.kind, params.name),
  });
}
