/** Tasks of Object records (SPEC.md, Objects): a record's tasks, one task by id, complete and uncomplete. */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  completeTask,
  createTask,
  deleteTask,
  findTask,
  listTasks,
  taskView,
  uncompleteTask,
  updateTask,
  type TaskInput,
  type TaskPatch,
} from '../../../db/tables/record-tasks.service.js';
import type { RouteRegistry } from '../../route-registry.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';
import { RecordTaskCreateSchema, RecordTaskPageSchema, RecordTaskPatchSchema, RecordTaskSchema } from '../../schemas/record-tasks.schema.js';
import { OBJECTS, findObject, paramsWith, recordParams, type PageQuery, type RecordParams } from './surface.js';

type TaskParams = { name: string; id: number };

const one = { 200: { description: 'RecordTask', schema: RecordTaskSchema } };

export function recordTaskRoutes(api: RouteRegistry): void {
  const { base, tag } = OBJECTS;
  const task = async (em: EntityManager, accountId: number, p: TaskParams) => findTask(em, await findObject(em, accountId, p.name), p.id);

  api.add<unknown, PageQuery, RecordParams>({
    method: 'get',
    operationId: 'listRecordTasks',
    path: `${base}/:name/rows/:rowId/tasks`,
    scope: 'any',
    tag,
    summary: 'Tasks of a record: open first, then by due date (none last)',
    params: recordParams,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [RecordTask], nextCursor }', schema: RecordTaskPageSchema } },
    handler: async ({ auth, em, params, query }) => listTasks(em, await findObject(em, auth.account.id, params.name), params.rowId, query),
  });
  api.add<TaskInput, unknown, RecordParams>({
    method: 'post',
    operationId: 'createRecordTask',
    path: `${base}/:name/rows/:rowId/tasks`,
    scope: 'U',
    tag,
    summary: 'Creates an open task on a record (assignees: users of the account); writes OBJECT_TASK_CREATED',
    params: recordParams,
    body: RecordTaskCreateSchema,
    status: 201,
    responses: { 201: { description: 'RecordTask', schema: RecordTaskSchema } },
    handler: async ({ auth, em, params, body }) =>
      createTask(em, await findObject(em, auth.account.id, params.name), params.rowId, body, auth.user!.id),
  });
  api.add<unknown, unknown, TaskParams>({
    method: 'get',
    operationId: 'getRecordTask',
    path: `${base}/:name/tasks/:id`,
    scope: 'any',
    tag,
    summary: 'One task',
    params: paramsWith('id'),
    responses: one,
    handler: async ({ auth, em, params }) => taskView(await task(em, auth.account.id, params)),
  });
  api.add<TaskPatch, unknown, TaskParams>({
    method: 'patch',
    operationId: 'updateRecordTask',
    path: `${base}/:name/tasks/:id`,
    scope: 'U',
    tag,
    summary: 'Changes the content, due date and/or assignees of a task',
    params: paramsWith('id'),
    body: RecordTaskPatchSchema,
    responses: one,
    handler: async ({ auth, em, params, body }) => updateTask(em, await task(em, auth.account.id, params), body),
  });
  api.add<unknown, unknown, TaskParams>({
    method: 'delete',
    operationId: 'deleteRecordTask',
    path: `${base}/:name/tasks/:id`,
    scope: 'U',
    tag,
    summary: 'Deletes a task',
    params: paramsWith('id'),
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ auth, em, params }) => deleteTask(em, await task(em, auth.account.id, params)),
  });
  api.add<unknown, unknown, TaskParams>({
    method: 'post',
    operationId: 'completeRecordTask',
    path: `${base}/:name/tasks/:id/complete`,
    scope: 'U',
    tag,
    summary: 'open → completed, recording who and when; writes OBJECT_TASK_COMPLETED (409 when already completed)',
    params: paramsWith('id'),
    responses: { ...one, 409: { description: 'Already completed' } },
    handler: async ({ auth, em, params }) => completeTask(em, await task(em, auth.account.id, params), auth.user!.id),
  });
  api.add<unknown, unknown, TaskParams>({
    method: 'post',
    operationId: 'uncompleteRecordTask',
    path: `${base}/:name/tasks/:id/uncomplete`,
    scope: 'U',
    tag,
    summary: 'completed → open (409 when open)',
    params: paramsWith('id'),
    responses: { ...one, 409: { description: 'Not completed' } },
    handler: async ({ auth, em, params }) => uncompleteTask(em, await task(em, auth.account.id, params)),
  });
}
