/**
 * Which ids of a kind of account resource exist, for the reference checks of node data. Each lookup answers
 * the subset of `ids` that name resources of the account; the others are reported `not_found`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Agent } from '../../db/agents/agent.entity.js';
import { AgentResource, type AgentResourceKind } from '../../db/agents/agent-resource.entity.js';
import { ConnectedAccount } from '../../db/catalogs/connected-account.entity.js';
import { Intent } from '../../db/agents/intent.entity.js';
import { findWebhookOfAccount } from '../../db/automations/incoming-webhooks.service.js';

export type ResourceId = string | number;

export type ExistingIds = (em: EntityManager, accountId: number, ids: readonly ResourceId[]) => Promise<Set<ResourceId>>;

export const existingWebhookIds: ExistingIds = async (em, accountId, ids) => {
  const found = new Set<ResourceId>();
  for (const id of ids) if (typeof id === 'string' && (await findWebhookOfAccount(em, accountId, id))) found.add(id);
  return found;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Live (not deleted) agents of the account; ids that are no UUID name none (and never reach the uuid column). */
export const existingAgentIds: ExistingIds = async (em, accountId, ids) => {
  const uuids = ids.filter((id): id is string => typeof id === 'string' && UUID.test(id));
  if (!uuids.length) return new Set();
  const agents = await em.find(Agent, { id: { $in: uuids.map((id) => id.toLowerCase()) }, account: accountId, deletedAt: null }, { fields: ['id'] });
  const found = new Set(agents.map((a) => a.id));
  return new Set(uuids.filter((id) => found.has(id.toLowerCase())));
};

/** An integer id, sent as a number or as a string of digits. */
function numericId(id: ResourceId): number | null {
  const n = typeof id === 'number' ? id : /^\d{1,9}$/.test(id) ? Number(id) : NaN;
  return Number.isSafeInteger(n) && n > 0 && n <= 2_147_483_647 ? n : null;
}

/** A lookup of integer ids: `find` answers which of the (well-formed) numbers exist. */
function existingNumbers(find: (em: EntityManager, accountId: number, numbers: number[]) => Promise<number[]>): ExistingIds {
  return async (em, accountId, ids) => {
    const numbers = ids.map(numericId).filter((n): n is number => n !== null);
    if (!numbers.length) return new Set();
    const found = new Set(await find(em, accountId, numbers));
    return new Set(ids.filter((id) => found.has(numericId(id) ?? -1)));
  };
}

/** The account's resources of one kind (custom tools, playbooks, knowledge bases: `/custom-tools`, …). */
const existingResources = (kind: AgentResourceKind): ExistingIds =>
  existingNumbers(async (em, accountId, numbers) =>
    (await em.find(AgentResource, { id: { $in: numbers }, account: accountId, kind }, { fields: ['id'] })).map((r) => r.id),
  );

export const existingCustomToolIds = existingResources('CUSTOM_TOOL');
export const existingPlaybookIds = existingResources('PLAYBOOK');
export const existingKnowledgeBaseIds = existingResources('KNOWLEDGE_BASE');

/** Intents of one agent (flows reference the intents of their own agent only). */
export const existingIntentIds = (agentId: string): ExistingIds =>
  existingNumbers(async (em, _accountId, numbers) =>
    (await em.find(Intent, { id: { $in: numbers }, agent: agentId }, { fields: ['id'] })).map((r) => r.id),
  );

/** Connected accounts (GET /integrations) of the account. */
export const existingConnectedAccountIds = existingNumbers(async (em, accountId, numbers) =>
  (await em.find(ConnectedAccount, { id: { $in: numbers }, account: accountId }, { fields: ['id'] })).map((r) => r.id),
);
