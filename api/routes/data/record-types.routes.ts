import type { EntityManager } from '@mikro-orm/postgresql';
import { RecordType } from '../../../db/tables/record-type.entity.js';
import { findRecordType, findTable } from '../../../db/tables/table-lookups.js';
import {
  createRecordType,
  deleteRecordType,
  listRecordTypes,
  updateRecordType,
  type RecordTypeInput,
  type RecordTypePatch,
} from '../../../db/tables/record-types.service.js';
import { createView, deleteView, findView, updateView, type ViewInput, type ViewPatch } from '../../../db/tables/views.service.js';
import { NotFoundError } from '../../../lib/errors.js';
import { paginate } from '../../pagination.js';
import type { RouteRegistry } from '../../route-registry.js';
import { PageQuerySchema, RecordTypeCreateSchema, RecordTypePatchSchema, ViewCreateSchema, ViewPatchSchema } from '../../schemas/data.schema.js';
import { OBJECTS, nameParam, paramsWith, schemaLock } from './surface.js';
import { RecordTypePageSchema, RecordTypeSchema, ViewSchema } from '../../schemas/data-responses.schema.js';

type Page = { limit: number; cursor?: string };

/** A record type of one of the account's Objects, with its Object. */
async function recordTypeOfAccount(em: EntityManager, accountId: number, recordTypeId: number) {
  const recordType = await em.findOne(RecordType, { id: recordTypeId, table: { account: accountId, kind: 'OBJECT' } }, { populate: ['table'] });
  if (!recordType) throw new NotFoundError(`Record type ${recordTypeId} not found`);
  return recordType;
}

const recordTypeParams = { type: 'object', required: ['recordTypeId'], properties: { recordTypeId: { type: 'integer', minimum: 1 } } };
const recordTypeViewParams = {
  type: 'object',
  required: ['recordTypeId', 'viewId'],
  properties: { recordTypeId: { type: 'integer', minimum: 1 }, viewId: { type: 'integer', minimum: 1 } },
};

export function recordTypeRoutes(api: RouteRegistry): void {
  const { base, tag } = OBJECTS;
  const object = (em: EntityManager, accountId: number, name: string) => findTable(em, accountId, 'OBJECT', name);
  api.resource<{ recordTypeId: number }>(`${base}/record-types/:recordTypeId`, (em, accountId, { recordTypeId }) =>
    recordTypeOfAccount(em, accountId, recordTypeId),
  );

  api.add<unknown, Page>({
    method: 'get',
    operationId: 'listRecordTypes',
    path: `${base}/:name/record-types`,
    scope: 'any',
    tag,
    summary: 'Record types of an Object',
    params: nameParam,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [RecordType], nextCursor }', schema: RecordTypePageSchema } },
    handler: async ({ auth, em, params, query }) =>
      paginate(await listRecordTypes(em, await object(em, auth.account.id, params.name)), query.limit, query.cursor),
  });
  api.add<RecordTypeInput>({
    method: 'post',
    operationId: 'createRecordType',
    path: `${base}/:name/record-types`,
    scope: 'U',
    tag,
    summary: 'Creates a record type (isDefault: true promotes it)',
    params: nameParam,
    body: RecordTypeCreateSchema,
    status: 201,
    responses: { 201: { description: 'RecordType', schema: RecordTypeSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => createRecordType(em, await object(em, auth.account.id, params.name), body),
  });
  api.add<RecordTypePatch, unknown, { name: string; recordTypeId: number }>({
    method: 'patch',
    operationId: 'updateRecordType',
    path: `${base}/:name/record-types/:recordTypeId`,
    scope: 'U',
    tag,
    summary: 'Renames, reorders or promotes a record type; the default one cannot be renamed',
    params: paramsWith('recordTypeId'),
    body: RecordTypePatchSchema,
    responses: { 200: { description: 'RecordType', schema: RecordTypeSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => {
      const table = await object(em, auth.account.id, params.name);
      return updateRecordType(em, table, await findRecordType(em, table, params.recordTypeId), body);
    },
  });
  api.add<unknown, unknown, { name: string; recordTypeId: number }>({
    method: 'delete',
    operationId: 'deleteRecordType',
    path: `${base}/:name/record-types/:recordTypeId`,
    scope: 'U',
    tag,
    summary: 'Deletes a record type no record uses; the default one cannot be deleted',
    params: paramsWith('recordTypeId'),
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    lock: schemaLock,
    handler: async ({ auth, em, params }) => {
      const table = await object(em, auth.account.id, params.name);
      await deleteRecordType(em, table, await findRecordType(em, table, params.recordTypeId));
    },
  });

  api.add<ViewInput, unknown, { recordTypeId: number }>({
    method: 'post',
    operationId: 'createRecordTypeView',
    path: `${base}/record-types/:recordTypeId/views`,
    scope: 'U',
    tag,
    summary: 'Saves a view scoped to a record type',
    params: recordTypeParams,
    body: ViewCreateSchema,
    status: 201,
    responses: { 201: { description: 'View', schema: ViewSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => {
      const recordType = await recordTypeOfAccount(em, auth.account.id, params.recordTypeId);
      return createView(em, recordType.table, body, recordType);
    },
  });
  api.add<ViewPatch, unknown, { recordTypeId: number; viewId: number }>({
    method: 'patch',
    operationId: 'updateRecordTypeView',
    path: `${base}/record-types/:recordTypeId/views/:viewId`,
    scope: 'U',
    tag,
    summary: 'Changes a record-type view',
    params: recordTypeViewParams,
    body: ViewPatchSchema,
    responses: { 200: { description: 'View', schema: ViewSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => {
      const recordType = await recordTypeOfAccount(em, auth.account.id, params.recordTypeId);
      return updateView(em, recordType.table, await findView(em, recordType.table, params.viewId, recordType), body);
    },
  });
  api.add<unknown, unknown, { recordTypeId: number; viewId: number }>({
    method: 'delete',
    operationId: 'deleteRecordTypeView',
    path: `${base}/record-types/:recordTypeId/views/:viewId`,
    scope: 'U',
    tag,
    summary: 'Deletes a record-type view',
    params: recordTypeViewParams,
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    lock: schemaLock,
    handler: async ({ auth, em, params }) => {
      const recordType = await recordTypeOfAccount(em, auth.account.id, params.recordTypeId);
      await deleteView(em, await findView(em, recordType.table, params.viewId, recordType));
    },
  });
}
