/**
 * The references of an agent setting (`PUT /agents/{agentId}/agent-setting`), checked like node data: `aiModelId` an
 * existing, non-deprecated TEXT model (the model check of the AI nodes); tools, playbooks, knowledge bases and
 * connected accounts ids of the account. Issue paths name the body's fields.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Issue } from '../../lib/errors.js';
import { idListCheck } from './account-references.check.js';
import { modelCheck } from './ai-model.check.js';
import { allOf } from './compose.js';
import { existingConnectedAccountIds, existingCustomToolIds, existingKnowledgeBaseIds, existingPlaybookIds } from './resource-lookups.js';

const checks = allOf(
  modelCheck('TEXT'),
  idListCheck({ field: 'customToolIds', what: 'custom tool', exists: existingCustomToolIds }),
  idListCheck({ field: 'playbookIds', what: 'playbook', exists: existingPlaybookIds }),
  idListCheck({ field: 'knowledgeBaseIds', what: 'knowledge base', exists: existingKnowledgeBaseIds }),
  idListCheck({ field: 'connectedAccountIds', what: 'connected account', exists: existingConnectedAccountIds }),
);

export async function checkAgentSetting(em: EntityManager, accountId: number, values: Record<string, unknown>): Promise<Issue[]> {
  const node = {
    nodeId: 'agent_setting',
    alias: 'agent setting',
    position: { positionX: 0, positionY: 0 },
    type: 'the agent setting',
    data: { ...values, type: 'the agent setting' },
    edges: [],
  };
  const ctx = { em, accountId, graph: { nodes: [], edges: [] }, variables: new Set<string>(), declared: [], variablesOf: 'agent' as const };
  return (await checks(node, ctx)).map((issue) => ({ ...issue, path: issue.path.replace(/^data\./, '') }));
}
