import { draftGraph, findWorkflow } from '../../db/automations/workflows.service.js';
import {
  createVariable,
  deleteVariable,
  findVariable,
  listVariables,
  nameExists,
  updateVariable,
  variableView,
  type VariableInput,
} from '../../db/automations/variables.service.js';
import { paginate } from '../pagination.js';
import type { RouteInput, RouteRegistry } from '../route-registry.js';
import { workflowLock } from './workflows.routes.js';
import { PageQuerySchema } from '../schemas/data.schema.js';
import { VariableCreateSchema, VariableUpdateSchema } from '../schemas/workflow.schema.js';
import {
  NameExistsSchema,
  WorkflowVariableAllSchema,
  WorkflowVariablePageSchema,
  WorkflowVariableSchema,
} from '../schemas/workflow-responses.schema.js';

const tag = 'Workflow variables';
const base = '/workflows/:workflowId/variables';
const idParams = { type: 'object', required: ['workflowId'], properties: { workflowId: { type: 'integer', minimum: 1 } } };
const variableParams = {
  type: 'object',
  required: ['workflowId', 'variableId'],
  properties: { workflowId: { type: 'integer', minimum: 1 }, variableId: { type: 'integer', minimum: 1 } },
};
type Id = { workflowId: number };
type VarId = Id & { variableId: number };

const readVariable = async ({ auth, em, params }: RouteInput<unknown, unknown, VarId>) =>
  variableView(await findVariable(em, await findWorkflow(em, auth.account.id, params.workflowId), params.variableId));

export function workflowVariableRoutes(api: RouteRegistry): void {
  api.add<unknown, { limit: number; cursor?: string }, Id>({
    method: 'get',
    path: base,
    scope: 'U',
    tag,
    summary: 'Declared variables of a workflow',
    params: idParams,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [variable], nextCursor }', schema: WorkflowVariablePageSchema } },
    handler: async ({ auth, em, params, query }) =>
      paginate((await listVariables(em, await findWorkflow(em, auth.account.id, params.workflowId))).map(variableView), query.limit, query.cursor),
  });
  api.add<VariableInput, unknown, Id>({
    method: 'post',
    path: base,
    scope: 'U',
    tag,
    summary: 'Declares a variable (a capture target, `{name}` in text fields)',
    params: idParams,
    body: VariableCreateSchema,
    status: 201,
    responses: { 201: { description: 'Variable', schema: WorkflowVariableSchema } },
    lock: workflowLock,
    handler: async ({ auth, em, params, body }) =>
      variableView(await createVariable(em, await findWorkflow(em, auth.account.id, params.workflowId), body)),
  });
  api.add<unknown, unknown, Id>({
    method: 'get',
    path: `${base}/all`,
    scope: 'U',
    tag,
    summary: 'Declared variables plus the built-in ones (trigger_payload, one per node)',
    params: idParams,
    responses: { 200: { description: '{ agentry: [variable] }: declared and built-in', schema: WorkflowVariableAllSchema } },
    handler: async ({ auth, em, params }) => {
      const workflow = await findWorkflow(em, auth.account.id, params.workflowId);
      const declared = (await listVariables(em, workflow)).map((v) => ({ ...variableView(v), builtIn: false }));
      const { graph } = await draftGraph(em, workflow);
      const builtIn = [
        { id: null, name: 'trigger_payload', description: 'The event that started the run', builtIn: true },
        ...graph.nodes.map((n) => ({ id: null, name: n.nodeId, description: `Output of ${n.alias} (${n.type})`, builtIn: true })),
      ];
      return { agentry: [...declared, ...builtIn], nextCursor: null };
    },
  });
  api.add<unknown, { name: string }, Id>({
    method: 'get',
    path: `${base}/check-name`,
    scope: 'U',
    tag,
    summary: 'Whether a variable of that name exists',
    params: idParams,
    query: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
    },
    responses: { 200: { description: '{ exists }', schema: NameExistsSchema } },
    handler: async ({ auth, em, params, query }) => ({
      exists: await nameExists(em, await findWorkflow(em, auth.account.id, params.workflowId), query.name),
    }),
  });
  api.add<unknown, unknown, VarId>({
    method: 'get',
    path: `${base}/:variableId`,
    scope: 'U',
    tag,
    summary: 'One variable',
    params: variableParams,
    responses: { 200: { description: 'Variable', schema: WorkflowVariableSchema } },
    etag: true,
    handler: readVariable,
  });
  api.add<Partial<VariableInput>, unknown, VarId>({
    method: 'put',
    path: `${base}/:variableId`,
    scope: 'U',
    tag,
    summary: 'Renames or describes a variable',
    params: variableParams,
    body: VariableUpdateSchema,
    responses: { 200: { description: 'Variable', schema: WorkflowVariableSchema } },
    lock: workflowLock,
    etag: readVariable,
    handler: async ({ auth, em, params, body }) => {
      const workflow = await findWorkflow(em, auth.account.id, params.workflowId);
      return variableView(await updateVariable(em, await findVariable(em, workflow, params.variableId), body));
    },
  });
  api.add<unknown, unknown, VarId>({
    method: 'delete',
    path: `${base}/:variableId`,
    scope: 'U',
    tag,
    summary: 'Deletes a variable',
    params: variableParams,
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    lock: workflowLock,
    handler: async ({ auth, em, params }) => {
      const workflow = await findWorkflow(em, auth.account.id, params.workflowId);
      await deleteVariable(em, await findVariable(em, workflow, params.variableId));
    },
  });
}
