/** Activities of Object records (SPEC.md, Objects): a record's timeline, and one activity by id. */
import {
  activityView,
  createActivity,
  deleteActivity,
  findActivity,
  listActivities,
  updateActivity,
  type ActivityInput,
  type ActivityPatch,
} from '../../../db/tables/record-activities.service.js';
import type { RouteRegistry } from '../../route-registry.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';
import {
  RecordActivityCreateSchema,
  RecordActivityPageSchema,
  RecordActivityPatchSchema,
  RecordActivitySchema,
} from '../../schemas/record-activities.schema.js';
import { OBJECTS, findObject, paramsWith, recordParams, type PageQuery, type RecordParams } from './surface.js';

type ActivityParams = { name: string; id: number };

export function recordActivityRoutes(api: RouteRegistry): void {
  const { base, tag } = OBJECTS;

  api.add<unknown, PageQuery, RecordParams>({
    method: 'get',
    operationId: 'listRecordActivities',
    path: `${base}/:name/rows/:rowId/activities`,
    scope: 'any',
    tag,
    summary: 'Activities of a record, newest first',
    params: recordParams,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [RecordActivity], nextCursor }', schema: RecordActivityPageSchema } },
    handler: async ({ auth, em, params, query }) => listActivities(em, await findObject(em, auth.account.id, params.name), params.rowId, query),
  });
  api.add<ActivityInput, unknown, RecordParams>({
    method: 'post',
    operationId: 'createRecordActivity',
    path: `${base}/:name/rows/:rowId/activities`,
    scope: 'U',
    tag,
    summary: 'Logs an activity (NOTE, PHONE_CALL, MEETING, EMAIL, WHATSAPP) on a record; the caller is its author',
    params: recordParams,
    body: RecordActivityCreateSchema,
    status: 201,
    responses: { 201: { description: 'RecordActivity', schema: RecordActivitySchema } },
    handler: async ({ auth, em, params, body }) =>
      createActivity(em, await findObject(em, auth.account.id, params.name), params.rowId, body, { userId: auth.user!.id }),
  });
  api.add<unknown, unknown, ActivityParams>({
    method: 'get',
    operationId: 'getRecordActivity',
    path: `${base}/:name/activities/:id`,
    scope: 'any',
    tag,
    summary: 'One activity',
    params: paramsWith('id'),
    responses: { 200: { description: 'RecordActivity', schema: RecordActivitySchema } },
    handler: async ({ auth, em, params }) => activityView(await findActivity(em, await findObject(em, auth.account.id, params.name), params.id)),
  });
  api.add<ActivityPatch, unknown, ActivityParams>({
    method: 'patch',
    operationId: 'updateRecordActivity',
    path: `${base}/:name/activities/:id`,
    scope: 'U',
    tag,
    summary: 'Changes the content and/or the type of an activity',
    params: paramsWith('id'),
    body: RecordActivityPatchSchema,
    responses: { 200: { description: 'RecordActivity', schema: RecordActivitySchema } },
    handler: async ({ auth, em, params, body }) =>
      updateActivity(em, await findActivity(em, await findObject(em, auth.account.id, params.name), params.id), body),
  });
  api.add<unknown, unknown, ActivityParams>({
    method: 'delete',
    operationId: 'deleteRecordActivity',
    path: `${base}/:name/activities/:id`,
    scope: 'U',
    tag,
    summary: 'Deletes an activity: only its author, and never an auto-generated one (409)',
    params: paramsWith('id'),
    status: 204,
    responses: { 204: { description: 'Deleted' }, 409: { description: 'Auto-generated activity' } },
    handler: async ({ auth, em, params }) => {
      const activity = await findActivity(em, await findObject(em, auth.account.id, params.name), params.id);
      await deleteActivity(em, activity, auth.user!.id);
    },
  });
}
