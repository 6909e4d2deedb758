/** `/agents/{agentId}/variables` (USER keys): the agent's declared variables and its built-in ones. */
import { AGENT_BUILT_IN_VARIABLES, agentVariables } from '../../../db/agents/agent-variables.js';
import { findAgent } from '../../../db/agents/agents.service.js';
import { flowGraphRules } from '../../../nodes/registry.js';
import type { RouteRegistry } from '../../route-registry.js';
import { AgentVariableAllSchema, AgentVariableSchema, page } from '../../schemas/agents.schema.js';
import { variableRoutes } from '../variables.routes.js';
import { agentLock, agentParams, type AgentId } from './agent-params.js';

export function agentVariableRoutes(api: RouteRegistry): void {
  variableRoutes<AgentId>(api, {
    noun: 'Agent',
    tag: 'Agent variables',
    path: '/agents/:agentId',
    params: agentParams(),
    variableParams: agentParams(['variableId']),
    lock: agentLock,
    find: async (em, accountId, { agentId }) => agentVariables(await findAgent(em, accountId, agentId)),
    nodes: flowGraphRules,
    schemas: { variable: AgentVariableSchema, page: page(AgentVariableSchema), all: AgentVariableAllSchema },
    summaries: {
      list: 'Declared variables of the agent',
      create: 'Declares a variable (a capture target, `{name}` in text fields of the flows)',
      all: `Declared variables plus the built-in ones every agent has: ${AGENT_BUILT_IN_VARIABLES.map((v) => v.name).join(', ')}`,
      delete: 'Deletes a variable; refused (409, naming the nodes) while a flow node captures into or interpolates it',
    },
    allDescription: '{ agentry: [variable], nextCursor: null }',
    deleteRefusals: { 409: { description: 'Used by flow nodes' } },
  });
}
