/**
 * An agent as the owner of variables: capture targets and `{name}` sources of its flows, besides the built-in ones
 * the conversation runtime fills. A variable a flow node captures into or interpolates cannot be deleted (409 naming
 * the nodes).
 */
import { AgentVariable } from './agent-variable.entity.js';
import type { Agent } from './agent.entity.js';
import type { VariableOwner } from '../automations/variables.service.js';
import { flowNodesWhere } from './flows.service.js';

/** Variables every agent has, filled by the conversation runtime; declared variables may not take their names. */
export const AGENT_BUILT_IN_VARIABLES = [
  { name: 'last_user_message', description: "The user's latest message" },
  { name: 'conversation_id', description: 'Id of the conversation' },
  { name: 'channel', description: 'Channel of the conversation: livechat, messaging, instagram or facebook' },
  { name: 'contact_name', description: "The user's name, when known" },
  { name: 'contact_email', description: "The user's email address, when known" },
  { name: 'contact_phone', description: "The user's phone number, when known" },
  { name: 'agent_name', description: 'Name of the agent' },
  { name: 'current_date', description: 'Date and time the turn runs, ISO 8601 (UTC)' },
] as const;

const RESERVED = new Set<string>(AGENT_BUILT_IN_VARIABLES.map((v) => v.name));

export function agentVariables(agent: Agent): VariableOwner<AgentVariable> {
  return {
    entity: AgentVariable,
    ref: { agent },
    reserved: RESERVED,
    builtIns: async () => [...AGENT_BUILT_IN_VARIABLES],
    nodesWhere: (em, uses) => flowNodesWhere(em, agent, uses),
  };
}
