/**
 * A flow as the owner of a graph (SPEC.md, Graph and Flow rules): node ids `<letters, digits, _ or ->_<digits>`
 * (`say_ai_1`, generated from the type when absent), the agent's variables and built-ins, and the rules that span the
 * graph: the default flow holds exactly one START and no TRIGGER_INTENT; another flow holds no START and, once it has
 * nodes, exactly one TRIGGER_INTENT, its entry; no edge enters an entry node.
 */
import type { Issue } from '../../lib/errors.js';
import type { Graph } from '../../lib/graph/graph.js';
import type { Flow } from './flow.entity.js';
import type { GraphOwner } from '../automations/graph-owner.js';
import { listVariables } from '../automations/variables.service.js';
import { AGENT_BUILT_IN_VARIABLES, agentVariables } from './agent-variables.js';

export const FLOW_NODE_ID = /^[A-Za-z0-9_-]+_\d+$/;

const ENTRY_TYPES = new Set(['START', 'TRIGGER_INTENT']);

/** `say_ai_3` when `say_ai_1` and `say_ai_2` exist: the type in lower case and the next free number. */
function newFlowNodeId(graph: Graph, type: string): string {
  const base = type.toLowerCase();
  const taken = new Set(graph.nodes.map((n) => n.nodeId));
  let n = 1;
  while (taken.has(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}

const issue = (path: string, message: string): Issue => ({ code: 'invalid', path, message });

function flowRules(isDefault: boolean) {
  return (graph: Graph): Issue[] => {
    const count = (type: string) => graph.nodes.filter((n) => n.type === type).length;
    const [starts, intents] = [count('START'), count('TRIGGER_INTENT')];
    const issues: Issue[] = [];
    if (isDefault) {
      if (starts === 0) issues.push(issue('nodeId', 'the START node of the default flow cannot be deleted: every conversation starts there'));
      if (starts > 1) issues.push(issue('type', 'the default flow holds exactly one START node'));
      if (intents)
        issues.push(issue('type', 'TRIGGER_INTENT is the entry of the other flows of the agent; the default flow starts at its START node'));
    } else {
      if (starts)
        issues.push(issue('type', 'START is only allowed in the default flow: a flow that is not the default begins with a TRIGGER_INTENT node'));
      if (graph.nodes.length && intents === 0)
        issues.push(
          issue('type', 'a flow that is not the default begins with a TRIGGER_INTENT node: add it first, and keep it while the flow has other nodes'),
        );
      if (intents > 1) issues.push(issue('type', 'a flow has exactly one TRIGGER_INTENT node, its entry'));
    }
    const entries = new Set(graph.nodes.filter((n) => ENTRY_TYPES.has(n.type)).map((n) => n.nodeId));
    if (graph.edges.some((e) => entries.has(e.targetEdge)))
      issues.push(issue('targetEdge', 'no edge may enter a START or TRIGGER_INTENT node: they are entry points'));
    return issues;
  };
}

export function flowGraphOwner(flow: Flow): GraphOwner {
  return {
    accountId: flow.account.id,
    draftSnapshotId: flow.draftSnapshotId,
    variablesOf: 'agent',
    agentId: flow.agent.id,
    nodeId: { pattern: FLOW_NODE_ID, describe: 'letters, digits, _ or -, then _ and digits (say_ai_1)' },
    newNodeId: newFlowNodeId,
    variables: async (em) => (await listVariables(em, agentVariables(flow.agent))).map(({ id, name, description }) => ({ id, name, description })),
    builtIns: AGENT_BUILT_IN_VARIABLES.map((v) => v.name),
    rules: flowRules(flow.isDefault),
  };
}
