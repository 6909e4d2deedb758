/**
 * Which ids of a kind of account resource exist, for the reference checks of node data. Each lookup answers
 * the subset of `ids` that name resources of the account; the others are reported `not_found`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { findWebhookOfAccount } from '../../../db/services/incoming-webhooks.service.js';

export type ResourceId = string | number;

export type ExistingIds = (em: EntityManager, accountId: number, ids: readonly ResourceId[]) => Promise<Set<ResourceId>>;

export const existingWebhookIds: ExistingIds = async (em, accountId, ids) => {
  const found = new Set<ResourceId>();
  for (const id of ids) if (typeof id === 'string' && (await findWebhookOfAccount(em, accountId, id))) found.add(id);
  return found;
};

/**
 * Agents, custom tools and knowledge bases are not stored by agentry yet, so no id names one and every id sent
 * is refused. The issues that add these resources replace each lookup with a query of the account's rows;
 * the checks using them do not change.
 */
const noneYet: ExistingIds = async () => new Set();

export const existingAgentIds: ExistingIds = noneYet;
export const existingCustomToolIds: ExistingIds = noneYet;
export const existingKnowledgeBaseIds: ExistingIds = noneYet;
