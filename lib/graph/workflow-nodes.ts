/** What a workflow graph says about the workflow: node ids and the workflow's trigger (SPEC.md, Workflow node types). */
import type { Graph } from './graph.js';

/** Node ids of workflows: `node_<uuid>`. */
export const WORKFLOW_NODE_ID = /^node_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The workflow-level `triggerType` that follows the graph: SCHEDULED_TRIGGER once a scheduled node exists, else
 * INCOMING_WEBHOOK for a WEBHOOK entry, else the event of the TRIGGER node, else none.
 */
export function triggerTypeOf(graph: Graph): string | null {
  if (graph.nodes.some((n) => n.type === 'SCHEDULED_TRIGGER')) return 'SCHEDULED_TRIGGER';
  if (graph.nodes.some((n) => n.type === 'WEBHOOK')) return 'INCOMING_WEBHOOK';
  const trigger = graph.nodes.find((n) => n.type === 'TRIGGER');
  return typeof trigger?.data.triggerType === 'string' ? trigger.data.triggerType : null;
}
