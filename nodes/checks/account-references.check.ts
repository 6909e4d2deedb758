/**
 * Cross-resource ids a node of any type may carry (SPEC.md, Graph: reference validation for workflows):
 * each must name a resource of the caller's account, else `not_found` and nothing is saved.
 */
import type { Issue } from '../../lib/errors.js';
import { findConnectedAccount } from '../../db/catalogs/integrations.service.js';
import { allOf } from './compose.js';
import {
  existingAgentIds,
  existingCustomToolIds,
  existingKnowledgeBaseIds,
  existingPlaybookIds,
  existingWebhookIds,
  type ExistingIds,
  type ResourceId,
} from './resource-lookups.js';
import { invalid, notFound, type NodeCheck } from './check-context.js';

interface IdList {
  field: string;
  /** What an id names, for messages ("incoming webhook"). */
  what: string;
  exists: ExistingIds;
  /** Agents and webhooks have string ids; tools and knowledge bases may be sent either way. */
  strings?: boolean;
}

/** `data[field]`, when present (null counts as absent): an array whose every id names a resource of the account. */
export function idListCheck({ field, what, exists, strings }: IdList): NodeCheck {
  return async (node, { em, accountId }) => {
    const ids = node.data[field];
    if (ids === undefined || ids === null) return [];
    if (!Array.isArray(ids)) return [invalid(field, `must be an array of ${what} ids`)];
    const issues: Issue[] = [];
    const wellFormed = ids.filter((id, i): id is ResourceId => {
      const ok = (typeof id === 'string' && id !== '') || (!strings && Number.isInteger(id));
      if (!ok)
        issues.push(invalid(`${field}[${i}]`, `must be the id of ${/^[aeiou]/.test(what) ? 'an' : 'a'} ${what}${strings ? ' (a string)' : ''}`));
      return ok;
    });
    const found = await exists(em, accountId, wellFormed);
    ids.forEach((id, i) => {
      if (wellFormed.includes(id) && !found.has(id)) issues.push(notFound(`${field}[${i}]`, `no ${what} ${JSON.stringify(id)} in this account`));
    });
    return issues;
  };
}

/** `connectedAccountId`, wherever present: a connected account (GET /integrations) of the account. */
export const checkConnectedAccount: NodeCheck = async (node, { em, accountId }) => {
  const id = node.data.connectedAccountId;
  if (id === undefined || id === null) return [];
  if (!Number.isInteger(id)) return [invalid('connectedAccountId', 'must be the numeric id of a connected account (GET /integrations)')];
  return (await findConnectedAccount(em, accountId, id as number))
    ? []
    : [notFound('connectedAccountId', `no connected account ${id} in this account`)];
};

/** `assistantId`, wherever present: an agent of the account (a RESPONSE_AI node answering as another agent). */
export const checkAssistant: NodeCheck = async (node, { em, accountId }) => {
  const id = node.data.assistantId;
  if (id === undefined || id === null) return [];
  if (typeof id !== 'string' || !id) return [invalid('assistantId', 'must be the id of an agent (a UUID string)')];
  return (await existingAgentIds(em, accountId, [id])).has(id) ? [] : [notFound('assistantId', `no agent ${JSON.stringify(id)} in this account`)];
};

export const checkAccountReferences: NodeCheck = allOf(
  checkConnectedAccount,
  checkAssistant,
  idListCheck({ field: 'triggeredByAgentIds', what: 'agent', exists: existingAgentIds, strings: true }),
  idListCheck({ field: 'triggerByWebhookIds', what: 'incoming webhook', exists: existingWebhookIds, strings: true }),
  idListCheck({ field: 'customToolIds', what: 'custom tool', exists: existingCustomToolIds }),
  idListCheck({ field: 'knowledgeBaseIds', what: 'knowledge base', exists: existingKnowledgeBaseIds }),
  idListCheck({ field: 'playbookIds', what: 'playbook', exists: existingPlaybookIds }),
);
