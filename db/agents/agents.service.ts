/**
 * Agents (SPEC.md, Agent): create with every default in one transaction, safe detail, metadata updates, soft delete
 * and the online/offline state of `deployment-status`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import type { GraphNode } from '../../lib/graph/graph.js';
import { Account } from '../accounts/account.entity.js';
import { Agent } from './agent.entity.js';
import { AgentConfig } from './agent-config.entity.js';
import { AgentVariable } from './agent-variable.entity.js';
import { Flow } from './flow.entity.js';
import { Intent } from './intent.entity.js';
import { AGENT_CHANNELS, CONFIG_KIND, DEFAULT_AGENT_SETTING, DEFAULT_THEME, defaultChannelSettings } from './agent-defaults.js';
import { createFlow } from './flows.service.js';

export interface AgentInput {
  name: string;
  description?: string | null;
}

export function agentListItem(a: Agent) {
  return { id: a.id, name: a.name, isOffline: a.isOffline };
}

/** The safe detail: never the widget's session key or identity secret. */
export function agentDetail(a: Agent, defaultFlowId: number | null) {
  return {
    ...agentListItem(a),
    description: a.description ?? null,
    defaultFlowId,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function listAgents(em: EntityManager, accountId: number): Promise<Agent[]> {
  return em.find(Agent, { account: accountId, deletedAt: null }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/** A live agent of the account, or 404 (an id that is no UUID names no agent). */
export async function findAgent(em: EntityManager, accountId: number, id: string): Promise<Agent> {
  const agent = UUID.test(id) ? await em.findOne(Agent, { id: id.toLowerCase(), account: accountId, deletedAt: null }) : null;
  if (!agent) throw new NotFoundError(`Agent ${id} not found`);
  return agent;
}

export async function defaultFlowId(em: EntityManager, agent: Agent): Promise<number | null> {
  return (await em.findOne(Flow, { agent, isDefault: true, deletedAt: null }, { fields: ['id'] }))?.id ?? null;
}

/** The START node of the default flow. */
const START_NODE: GraphNode = {
  nodeId: 'start_1',
  alias: 'start',
  position: { positionX: 0, positionY: 0 },
  type: 'START',
  data: { type: 'START' },
  edges: [],
};

/** Creates the agent, offline, with its agent setting, theme, channel settings and default flow "Start", at once. */
export async function createAgent(em: EntityManager, accountId: number, input: AgentInput): Promise<Agent> {
  return em.transactional(async (tx) => {
    const agent = tx.create(Agent, {
      id: randomUUID(),
      account: tx.getReference(Account, accountId),
      name: input.name.trim(),
      description: input.description ?? null,
      widgetSessionKey: randomBytes(32).toString('hex'),
    });
    tx.create(AgentConfig, { agent, kind: CONFIG_KIND.setting, values: DEFAULT_AGENT_SETTING });
    tx.create(AgentConfig, { agent, kind: CONFIG_KIND.theme, values: DEFAULT_THEME });
    for (const channel of AGENT_CHANNELS)
      tx.create(AgentConfig, { agent, kind: CONFIG_KIND.channel(channel), values: defaultChannelSettings(channel) });
    await tx.flush();
    await createFlow(tx, agent, { name: 'Start' }, { isDefault: true, graph: { nodes: [START_NODE], edges: [] } });
    return agent;
  });
}

export async function updateAgent(em: EntityManager, agent: Agent, patch: Partial<AgentInput>): Promise<Agent> {
  if (patch.name !== undefined) agent.name = patch.name.trim();
  if (patch.description !== undefined) agent.description = patch.description;
  await em.flush();
  return agent;
}

/**
 * Soft delete: the agent and its flows are marked deleted, its variables and intents removed, in one transaction.
 * Workflows whose TRIGGER nodes list it keep the id and keep firing for the other agents they list.
 */
export async function deleteAgent(em: EntityManager, agent: Agent): Promise<void> {
  await em.transactional(async (tx) => {
    const now = new Date();
    await tx.nativeUpdate(Flow, { agent, deletedAt: null }, { deletedAt: now });
    await tx.nativeDelete(AgentVariable, { agent });
    await tx.nativeDelete(Intent, { agent });
    await tx.nativeUpdate(Agent, { id: agent.id }, { deletedAt: now, isOffline: true });
  });
  agent.deletedAt = new Date();
}

/** Credits left; an account with a balance (not unlimited) of zero or less cannot serve conversations. */
function creditsExhausted(account: Account): boolean {
  return account.creditBalance !== null && account.creditBalance !== undefined && account.creditBalance <= 0;
}

/**
 * `isOffline: true` pauses the agent; `false` publishes it (SPEC.md, States and transitions). Billing check: an
 * account whose credit balance is exhausted cannot take an agent online (409); going offline is always allowed.
 */
export async function setDeployment(em: EntityManager, agent: Agent, isOffline: boolean): Promise<Agent> {
  if (!isOffline && agent.isOffline) {
    const account = await em.findOneOrFail(Account, { id: agent.account.id });
    if (creditsExhausted(account)) {
      throw new ConflictError(
        `The account's credit balance is exhausted (${account.creditBalance}): add credits before taking agent "${agent.name}" online`,
      );
    }
  }
  agent.isOffline = isOffline;
  await em.flush();
  return agent;
}
