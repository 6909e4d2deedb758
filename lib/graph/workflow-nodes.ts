/** Node types of workflows and what the graph says about the workflow's trigger (SPEC.md, Workflow node types). */
import type { Graph } from './graph.js';

export const WORKFLOW_NODE_TYPES = [
  'TRIGGER',
  'SCHEDULED_TRIGGER',
  'WEBHOOK',
  'API',
  'TOOLS_AI',
  'CONDITIONAL_ROUTING',
  'AI_CAPTURE',
  'DATA_TRANSFORMER',
  'DYNAMIC_TABLES',
  'CREATE_RECORD_ACTIVITY',
  'ITERATION',
  'BREAK',
  'AUTOMATION_STATUS',
  'SEND_MESSAGE',
  'SEND_MESSAGING_MESSAGE',
  'TRANSCRIPTION',
  'FILE_ANALYSIS',
] as const;
export type WorkflowNodeType = (typeof WORKFLOW_NODE_TYPES)[number];

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

/** Node types a run starts from: the event, call or schedule that fired is their output. */
export const ENTRY_NODE_TYPES = ['TRIGGER', 'WEBHOOK', 'SCHEDULED_TRIGGER'];

/** Node types whose execution does no I/O (the entry nodes): the runtime runs them as Temporal local activities. */
export const LOCAL_NODE_TYPES: ReadonlySet<string> = new Set(ENTRY_NODE_TYPES);
