/** A workflow as the owner of a graph: `node_<uuid>` ids, its declared variables and `{trigger_payload}`. */
import { randomUUID } from 'node:crypto';
import { WORKFLOW_NODE_ID, triggerTypeOf } from '../../lib/graph/workflow-nodes.js';
import type { Automation } from './automation.entity.js';
import type { GraphOwner } from './graph-owner.js';
import { listVariables, automationVariables } from './variables.service.js';

export function automationGraphOwner(automation: Automation): GraphOwner {
  return {
    accountId: automation.account.id,
    automationId: automation.id,
    draftSnapshotId: automation.draftSnapshotId,
    variablesOf: 'workflow',
    nodeId: { pattern: WORKFLOW_NODE_ID, describe: 'node_<uuid>' },
    newNodeId: () => `node_${randomUUID()}`,
    variables: async (em) =>
      (await listVariables(em, automationVariables(automation))).map(({ id, name, description }) => ({ id, name, description })),
    builtIns: ['trigger_payload'],
    onSave: (graph) => {
      automation.triggerType = triggerTypeOf(graph);
    },
  };
}
