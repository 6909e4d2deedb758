/**
 * The routes of declared variables, the same for each owner of variables (`<owner>/variables`): a workflow's
 * (workflow-variables.routes.ts) and an agent's (agents/agent-variables.routes.ts).
 */
import type { GraphRules } from '../../db/automations/graph-rules.js';
import {
  allVariables,
  createVariable,
  deleteVariable,
  findVariable,
  listVariables,
  updateVariable,
  variableExists,
  variableView,
  type VariableInput,
  type VariableOwner,
} from '../../db/automations/variables.service.js';
import { paginate } from '../pagination.js';
import type { RouteInput, RouteRegistry, RouteResponse } from '../route-registry.js';
import { PageQuerySchema } from '../schemas/data.schema.js';
import { VariableCreateSchema, VariableUpdateSchema } from '../schemas/workflow.schema.js';
import { NameExistsSchema } from '../schemas/workflow-responses.schema.js';
import type { JsonSchema } from '../validation.js';
import { ownerOf, type RouteOwner } from './route-owner.js';

/** An owner of variables (a workflow, an agent) as its routes see it. */
export interface VariableRoutesOwner<P> extends RouteOwner<P, VariableOwner> {
  /** Schema of the path parameters with `variableId`. */
  variableParams: JsonSchema;
  /** The owner's node types: whether a node uses a variable. */
  nodes: GraphRules;
  /** Response schemas: one variable, a page of them, and the declared and built-in ones. */
  schemas: { variable: JsonSchema; page: JsonSchema; all: JsonSchema };
  /** What the summaries say of this owner. */
  summaries: { list: string; create: string; all: string; delete: string };
  /** The description of the answer of `/variables/all`. */
  allDescription: string;
  /** Refusals a delete may answer besides 204. */
  deleteRefusals?: Record<number, RouteResponse>;
}

export function variableRoutes<P>(api: RouteRegistry, owner: VariableRoutesOwner<P>): void {
  const { tag, noun, params, variableParams, lock, summaries } = owner;
  const base = `${owner.path}/variables`;
  type VarId = P & { variableId: number };
  api.resource(owner.path, owner.find);
  api.resource<VarId>(`${base}/:variableId`, async (em, accountId, p) => findVariable(em, await owner.find(em, accountId, p), p.variableId));
  const variable = { description: 'Variable', schema: owner.schemas.variable };
  const find = (input: RouteInput<unknown, unknown, P>) => ownerOf(owner, input);
  const readVariable = async (input: RouteInput<unknown, unknown, VarId>) =>
    variableView(await findVariable(input.em, await find(input), input.params.variableId));
  api.add<unknown, { limit: number; cursor?: string }, P>({
    method: 'get',
    operationId: `list${noun}Variables`,
    path: base,
    scope: 'U',
    tag,
    summary: summaries.list,
    params,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [variable], nextCursor }', schema: owner.schemas.page } },
    handler: async (input) => paginate((await listVariables(input.em, await find(input))).map(variableView), input.query.limit, input.query.cursor),
  });
  api.add<VariableInput, unknown, P>({
    method: 'post',
    operationId: `create${noun}Variable`,
    path: base,
    scope: 'U',
    tag,
    summary: summaries.create,
    params,
    body: VariableCreateSchema,
    status: 201,
    responses: { 201: variable, 409: { description: 'The name is taken (by a variable or a built-in)' } },
    lock,
    handler: async (input) => variableView(await createVariable(input.em, await find(input), input.body)),
  });
  api.add<unknown, unknown, P>({
    method: 'get',
    operationId: `listAll${noun}Variables`,
    path: `${base}/all`,
    scope: 'U',
    tag,
    summary: summaries.all,
    params,
    responses: { 200: { description: owner.allDescription, schema: owner.schemas.all } },
    handler: async (input) => ({ agentry: await allVariables(input.em, await find(input)), nextCursor: null }),
  });
  api.add<unknown, { name: string }, P>({
    method: 'get',
    operationId: `check${noun}VariableName`,
    path: `${base}/check-name`,
    scope: 'U',
    tag,
    summary: 'Whether a variable (declared or built-in) of that name exists',
    params,
    query: {
      type: 'object',
      additionalProperties: false,
      required: ['name'],
      properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
    },
    responses: { 200: { description: '{ exists }', schema: NameExistsSchema } },
    handler: async (input) => ({ exists: await variableExists(input.em, await find(input), input.query.name) }),
  });
  api.add<unknown, unknown, VarId>({
    method: 'get',
    operationId: `get${noun}Variable`,
    path: `${base}/:variableId`,
    scope: 'U',
    tag,
    summary: 'One variable',
    params: variableParams,
    responses: { 200: variable },
    etag: true,
    handler: readVariable,
  });
  api.add<Partial<VariableInput>, unknown, VarId>({
    method: 'put',
    operationId: `update${noun}Variable`,
    path: `${base}/:variableId`,
    scope: 'U',
    tag,
    summary: 'Renames or describes a variable',
    params: variableParams,
    body: VariableUpdateSchema,
    responses: { 200: variable },
    lock,
    etag: readVariable,
    handler: async (input) => {
      const variables = await find(input);
      return variableView(await updateVariable(input.em, variables, await findVariable(input.em, variables, input.params.variableId), input.body));
    },
  });
  api.add<unknown, unknown, VarId>({
    method: 'delete',
    operationId: `delete${noun}Variable`,
    path: `${base}/:variableId`,
    scope: 'U',
    tag,
    summary: summaries.delete,
    params: variableParams,
    status: 204,
    responses: { 204: { description: 'Deleted' }, ...owner.deleteRefusals },
    lock,
    handler: async (input) => {
      const variables = await find(input);
      await deleteVariable(input.em, variables, await findVariable(input.em, variables, input.params.variableId), owner.nodes.variablesUsed);
    },
  });
}
