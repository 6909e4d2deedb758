/**
 * Declared variables of an agent: capture targets and `{name}` sources of its flows. A variable a flow node captures
 * into or interpolates cannot be deleted (409 naming the nodes).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { GraphNode } from '../../lib/graph/graph.js';
import { AgentVariable, Flow, GraphSnapshot, type Agent } from '../entities/index.js';
import { checkVariableName, type VariableInput } from '../automations/variables.service.js';

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

export function agentVariableView(v: AgentVariable) {
  return { id: v.id, name: v.name, description: v.description, createdAt: v.createdAt.toISOString(), updatedAt: v.updatedAt.toISOString() };
}

export async function listAgentVariables(em: EntityManager, agent: Agent): Promise<AgentVariable[]> {
  return em.find(AgentVariable, { agent }, { orderBy: { id: 'asc' } });
}

export async function agentVariableExists(em: EntityManager, agent: Agent, name: string): Promise<boolean> {
  return RESERVED.has(name) || (await em.count(AgentVariable, { agent, name })) > 0;
}

async function freeName(em: EntityManager, agent: Agent, name: string): Promise<string> {
  checkVariableName(name, RESERVED);
  if (await agentVariableExists(em, agent, name)) throw new ConflictError(`A variable named "${name}" already exists`);
  return name;
}

export async function createAgentVariable(em: EntityManager, agent: Agent, input: VariableInput): Promise<AgentVariable> {
  const variable = em.create(AgentVariable, { agent, name: await freeName(em, agent, input.name), description: input.description ?? '' });
  await em.flush();
  return variable;
}

export async function findAgentVariable(em: EntityManager, agent: Agent, id: number): Promise<AgentVariable> {
  const variable = await em.findOne(AgentVariable, { id, agent });
  if (!variable) throw new NotFoundError(`Variable ${id} not found`);
  return variable;
}

export async function updateAgentVariable(em: EntityManager, variable: AgentVariable, patch: Partial<VariableInput>): Promise<AgentVariable> {
  if (patch.name !== undefined && patch.name !== variable.name) variable.name = await freeName(em, variable.agent, patch.name);
  if (patch.description !== undefined) variable.description = patch.description;
  await em.flush();
  return variable;
}

/** Where the nodes of the agent's flows (draft and live graphs) match `uses`: `flow "Start" node say_ai_1 (SAY_AI)`. */
export async function flowNodesWhere(em: EntityManager, agent: Agent, uses: (node: GraphNode) => boolean): Promise<string[]> {
  const flows = await listLiveFlows(em, agent);
  const snapshotIds = flows.flatMap((f) => [f.draftSnapshotId, f.liveSnapshotId ?? []].flat());
  const snapshots = snapshotIds.length ? await em.find(GraphSnapshot, { id: { $in: snapshotIds } }) : [];
  const places = new Set<string>();
  for (const flow of flows) {
    for (const snapshot of snapshots.filter((s) => s.ownerId === String(flow.id))) {
      for (const node of snapshot.nodes.filter(uses)) places.add(`flow "${flow.name}" node ${node.nodeId} (${node.type})`);
    }
  }
  return [...places];
}

const listLiveFlows = (em: EntityManager, agent: Agent) => em.find(Flow, { agent, deletedAt: null }, { orderBy: { id: 'asc' } });

/** Deletes a variable no flow node uses; `variablesUsed` names the variables a node reads or captures into. */
export async function deleteAgentVariable(em: EntityManager, variable: AgentVariable, variablesUsed: (node: GraphNode) => string[]): Promise<void> {
  const capturesById = (node: GraphNode) =>
    Array.isArray(node.data.captureVariables) && (node.data.captureVariables as { id?: unknown }[]).some((c) => c?.id === variable.id);
  const users = await flowNodesWhere(em, variable.agent, (node) => variablesUsed(node).includes(variable.name) || capturesById(node));
  if (users.length) throw new ConflictError(`Variable "${variable.name}" is used by ${users.join(', ')}: change those nodes first`, { nodes: users });
  em.remove(variable);
  await em.flush();
}
