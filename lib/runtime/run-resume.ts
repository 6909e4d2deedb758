/**
 * A retry from the failed node (`POST /workflows/{id}/logs/{logId}/retry` with `from: "failed-node"`): what the new
 * run keeps of the failed one. The new run starts its walk at the failed node, with the results of the nodes before
 * it, their outputs (`{<nodeId>}`) and the declared variables as the failed run had them (`RunResume`). Pure.
 */
import type { Graph } from '../graph/graph.js';
import type { NodeResult, RunResult, RunResume } from './contract.js';

export type ResumePlan = { ok: true; resume: RunResume } | { ok: false; message: string };

const truncated = (value: unknown) => !!value && typeof value === 'object' && (value as { truncated?: unknown }).truncated === true;

/**
 * What a retry of `result` (a failed run's result) from its failed node keeps, walking `graph` (the failed run's own
 * or the live one). Refused with a message when the run has no failed node, when the node ran inside a loop's body
 * (a loop cannot be entered halfway: retry from the start), or when a kept value was too large for the result.
 */
export function resumeFromFailure(result: RunResult, graph: Graph): ResumePlan {
  const failed = result.error;
  if (result.successful || !failed) return { ok: false, message: 'the run has no failed node' };
  let at = result.nodeResults.length;
  for (let i = result.nodeResults.length - 1; i >= 0; i -= 1) {
    const r = result.nodeResults[i]!;
    if (r.nodeId === failed.nodeId && !r.success) {
      at = i;
      break;
    }
  }
  const loop = enclosingLoop(graph, failed.nodeId);
  if (loop)
    return {
      ok: false,
      message: `node ${failed.nodeId} runs inside the body of loop ${loop}, which cannot be resumed halfway: retry from the start`,
    };
  const kept: NodeResult[] = result.nodeResults.slice(0, at);
  const outputs: Record<string, unknown> = {};
  for (const r of kept) {
    if (!r.success || r.output === undefined) continue;
    if (truncated(r.output))
      return { ok: false, message: `the output of node ${r.nodeId} was too large to keep in the run's result: retry from the start` };
    outputs[r.nodeId] = r.output;
  }
  for (const [name, value] of Object.entries(result.variables)) {
    if (truncated(value)) return { ok: false, message: `variable ${name} was too large to keep in the run's result: retry from the start` };
  }
  return { ok: true, resume: { fromNodeId: failed.nodeId, nodeResults: kept, outputs, variables: { ...result.variables } } };
}

/** The ITERATION whose body reaches `nodeId` (following edges from its `body`, back to itself at most); undefined when none. */
export function enclosingLoop(graph: Graph, nodeId: string): string | undefined {
  const next = new Map<string, string[]>();
  for (const edge of graph.edges) next.set(edge.source, [...(next.get(edge.source) ?? []), edge.targetEdge]);
  for (const loop of graph.nodes.filter((n) => n.type === 'ITERATION')) {
    const body = graph.edges.find((e) => e.source === loop.nodeId && e.handle === 'body')?.targetEdge;
    const seen = new Set<string>();
    const queue = body ? [body] : [];
    while (queue.length) {
      const id = queue.pop()!;
      if (id === loop.nodeId || seen.has(id)) continue;
      if (id === nodeId) return loop.nodeId;
      seen.add(id);
      queue.push(...(next.get(id) ?? []));
    }
  }
  return undefined;
}
