/** `/agents/{agentId}/variables` (USER keys): the agent's declared variables and its built-in ones. */
import { flowNodeCatalog } from '../../../nodes/registry.js';
import {
  AGENT_BUILT_IN_VARIABLES,
  agentVariableExists,
  agentVariableView,
  createAgentVariable,
  deleteAgentVariable,
  findAgentVariable,
  listAgentVariables,
  updateAgentVariable,
} from '../../../db/agents/agent-variables.service.js';
import { findAgent } from '../../../db/agents/agents.service.js';
import type { VariableInput } from '../../../db/automations/variables.service.js';
import { paginate } from '../../pagination.js';
import type { RouteInput, RouteRegistry } from '../../route-registry.js';
import { AgentVariableAllSchema, AgentVariableSchema, page } from '../../schemas/agents.schema.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';
import { VariableCreateSchema, VariableUpdateSchema } from '../../schemas/workflow.schema.js';
import { agentLock, agentParams, type AgentId } from './agent-params.js';

const tag = 'Agent variables';
const base = '/agents/:agentId/variables';
const params = agentParams();
const variableParams = agentParams(['variableId']);
type VarId = AgentId & { variableId: number };
const variable = { description: 'Variable', schema: AgentVariableSchema };
const readVariable = async ({ auth, em, params }: RouteInput<unknown, unknown, VarId>) =>
  agentVariableView(await findAgentVariable(em, await findAgent(em, auth.account.id, params.agentId), params.variableId));

export function agentVariableRoutes(api: RouteRegistry): void {
  api.add<unknown, { limit: number; cursor?: string }, AgentId>({
    method: 'get',
    path: base,
    scope: 'U',
    tag,
    summary: 'Declared variables of the agent',
    params,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [variable], nextCursor }', schema: page(AgentVariableSchema) } },
    handler: async ({ auth, em, params, query }) =>
      paginate(
        (await listAgentVariables(em, await findAgent(em, auth.account.id, params.agentId))).map(agentVariableView),
        query.limit,
        query.cursor,
      ),
  });
  api.add<VariableInput, unknown, AgentId>({
    method: 'post',
    path: base,
    scope: 'U',
    tag,
    summary: 'Declares a variable (a capture target, `{name}` in text fields of the flows)',
    params,
    body: VariableCreateSchema,
    status: 201,
    responses: { 201: variable, 409: { description: 'The name is taken (by a variable or a built-in)' } },
    lock: agentLock,
    handler: async ({ auth, em, params, body }) =>
      agentVariableView(await createAgentVariable(em, await findAgent(em, auth.account.id, params.agentId), body)),
  });
  api.add<unknown, unknown, AgentId>({
    method: 'get',
    path: `${base}/all`,
    scope: 'U',
    tag,
    summary: `Declared variables plus the built-in ones every agent has: ${AGENT_BUILT_IN_VARIABLES.map((v) => v.name).join(', ')}`,
    params,
    responses: { 200: { description: '{ agentry: [variable], nextCursor: null }', schema: AgentVariableAllSchema } },
    handler: async ({ auth, em, params }) => {
      const declared = (await listAgentVariables(em, await findAgent(em, auth.account.id, params.agentId))).map((v) => ({
        ...agentVariableView(v),
        builtIn: false,
      }));
      const builtIn = AGENT_BUILT_IN_VARIABLES.map((v) => ({ id: null, name: v.name, description: v.description, builtIn: true }));
      return { agentry: [...declared, ...builtIn], nextCursor: null };
    },
  });
  api.add<unknown, { name: string }, AgentId>({
    method: 'get',
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
    responses: {
      200: {
        description: '{ exists }',
        schema: { type: 'object', additionalProperties: false, required: ['exists'], properties: { exists: { type: 'boolean' } } },
      },
    },
    handler: async ({ auth, em, params, query }) => ({
      exists: await agentVariableExists(em, await findAgent(em, auth.account.id, params.agentId), query.name),
    }),
  });
  api.add<unknown, unknown, VarId>({
    method: 'get',
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
    path: `${base}/:variableId`,
    scope: 'U',
    tag,
    summary: 'Renames or describes a variable',
    params: variableParams,
    body: VariableUpdateSchema,
    responses: { 200: variable },
    lock: agentLock,
    etag: readVariable,
    handler: async ({ auth, em, params, body }) => {
      const agent = await findAgent(em, auth.account.id, params.agentId);
      return agentVariableView(await updateAgentVariable(em, await findAgentVariable(em, agent, params.variableId), body));
    },
  });
  api.add<unknown, unknown, VarId>({
    method: 'delete',
    path: `${base}/:variableId`,
    scope: 'U',
    tag,
    summary: 'Deletes a variable; refused (409, naming the nodes) while a flow node captures into or interpolates it',
    params: variableParams,
    status: 204,
    responses: { 204: { description: 'Deleted' }, 409: { description: 'Used by flow nodes' } },
    lock: agentLock,
    handler: async ({ auth, em, params }) => {
      const agent = await findAgent(em, auth.account.id, params.agentId);
      await deleteAgentVariable(em, await findAgentVariable(em, agent, params.variableId), flowNodeCatalog.variablesUsed);
    },
  });
}
