/** A workflow as the owner of a graph: `node_<uuid>` ids, its declared variables and `{trigger_payload}`. */
import { randomUUID } from 'node:crypto';
import { WORKFLOW_NODE_ID, triggerTypeOf } from '../../lib/graph/workflow-nodes.js';
import type { Workflow } from '../entities/index.js';
import type { GraphOwner } from './graph-owner.js';
import { listVariables, workflowVariables } from './variables.service.js';

export function workflowGraphOwner(workflow: Workflow): GraphOwner {
  return {
    accountId: workflow.account.id,
    automationId: workflow.id,
    draftSnapshotId: workflow.draftSnapshotId,
    variablesOf: 'workflow',
    nodeId: { pattern: WORKFLOW_NODE_ID, describe: 'node_<uuid>' },
    newNodeId: () => `node_${randomUUID()}`,
    variables: async (em) => (await listVariables(em, workflowVariables(workflow))).map(({ id, name, description }) => ({ id, name, description })),
    builtIns: ['trigger_payload'],
    onSave: (graph) => {
      workflow.triggerType = triggerTypeOf(graph);
    },
  };
}
