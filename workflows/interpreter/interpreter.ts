/**
 * The automation interpreter (DESIGN.md, Runtime semantics): walks an automation's graph from the entry node that fired,
 * running each node through `executeNode` and following the edge of the handle the node chose. Pure: no Temporal
 * import and no I/O; the workflow passes its proxied activity as `executeNode`, tests pass a fake.
 *
 * - A path ends at a node without an edge for the chosen handle (`default` unless the node names one).
 * - Every executed node counts one step, ITERATION and BREAK included; the step after `maxSteps` fails the run
 *   before that node runs.
 * - A node's output is the runtime variable `{<nodeId>}`; API and capture nodes also write declared variables
 *   (`interpreter/captures.ts`). Interpolable fields are filled before the node runs. What differs by node type
 *   (interpolated fields, captures) comes in `options.nodeFacts`; only ITERATION and BREAK, the control flow of
 *   the graph language, are known here by name.
 * - ITERATION runs the `body` path once per item, to its end, with `{<loopNodeId>.item|index|length}` in scope,
 *   then follows `completed`; no items follows `empty`; more than `maxLoopItems` fails the run before the body.
 *   An edge from inside the body back to the loop node ends that item (the usual way editors draw loops). BREAK
 *   ends the innermost loop and continues on its `completed` path; outside a loop it fails the run.
 * - A node answering `suspend` pauses the walk there (a conversation waiting for the user's answer): the result
 *   names it in `suspendedAt`, with the variables so far; the caller resumes later from that node's next edge.
 * - A failed node is recorded in `nodeResults` (with the AI credits its error says it spent) and fails the run,
 *   unless it ran inside the body of a loop with `continueOnError: true`, which records the item in its output
 *   (`failed[]`) and goes on with the next item. Run limits (steps, loop size) and a broken graph fail the run even
 *   there.
 */
import type { Graph, GraphNode } from '../../lib/graph/graph.js';
import { interpolateFields } from '../../lib/runtime/interpolate.js';
import { applyCaptures } from './captures.js';
import { loopItems } from './loop-items.js';
import { describe, errorMessage, RunFailure, RunState, spentCredits, type LoopFrame } from './run-state.js';
import type { ExecuteNode, InterpretOptions, NodeOutcome, RunResult } from './types.js';
import type { NodeFacts } from '../../lib/runtime/contract.js';

export type { ExecuteNode, InterpretOptions, NodeInput, NodeOutcome, NodeResult, RunResult } from './types.js';
/** Thrown by `executeNode` with `fatal: true`, a failure ends the run even inside a loop with `continueOnError`. */
export { RunFailure } from './run-state.js';

/** The output of an ITERATION node (its `{<nodeId>}`), complete once the loop is left. */
export interface LoopSummary {
  /** Items of the list. */
  length: number;
  /** Items whose body was started. */
  iterations: number;
  /** Items skipped after a failure (only with `continueOnError: true`). */
  failed: { index: number; nodeId: string; message: string }[];
  /** Whether a BREAK ended the loop. */
  broken: boolean;
}

/** How a path inside a loop body ended: at its end (or back at the loop node), or at a BREAK. */
type PathEnd = 'ended' | 'break';

/** Leaves the walk when a node answers `suspend`, through any loop, to `interpret`. */
class Suspended {
  constructor(readonly nodeId: string) {}
}

class Interpreter {
  constructor(
    private readonly state: RunState,
    private readonly executeNode: ExecuteNode,
  ) {}

  async walk(startNodeId: string, loops: readonly LoopFrame[]): Promise<PathEnd> {
    const { state } = this;
    const innermost = loops.at(-1);
    let nodeId: string | undefined = startNodeId;
    while (nodeId !== undefined) {
      if (innermost && nodeId === innermost.nodeId) return 'ended';
      if (loops.some((frame) => frame.nodeId === nodeId)) {
        throw new RunFailure(nodeId, `the body of loop ${innermost!.nodeId} leads back into the enclosing loop ${nodeId}`, true);
      }
      const node = state.node(nodeId);
      state.countStep(node);
      if (node.type === 'BREAK') {
        if (!innermost) throw state.fail(node, `BREAK ${describe(node)} is outside a loop: there is no loop to exit`);
        state.record(node, { success: true });
        return 'break';
      }
      const handle = node.type === 'ITERATION' ? await this.loop(node, loops) : await this.execute(node, loops);
      nodeId = state.next(node, handle);
    }
    return 'ended';
  }

  /**
   * Runs one node through `executeNode`; answers the handle to follow. A promise chain rather than an async function:
   * in a workflow, every promise costs a stack trace (the SDK's promise hook), and a chain of nodes pays it per node.
   */
  private execute(node: GraphNode, loops: readonly LoopFrame[]): Promise<string> {
    const { state } = this;
    const scope = state.scope(loops);
    const facts = state.facts(node);
    const interpolatedData = interpolateFields(node.data, facts?.interpolated ?? [], scope);
    const final = loops.length === 0 && !state.hasEdges(node);
    let running: Promise<NodeOutcome | undefined>;
    try {
      running = this.executeNode(node, { interpolatedData, scope, step: state.steps, ...(final ? { final } : {}) });
    } catch (error) {
      running = Promise.reject(error);
    }
    return running.then(
      (outcome) => this.executed(node, facts, outcome ?? {}),
      (error: unknown) => {
        if (state.options.propagate?.(error)) throw error;
        throw state.fail(node, errorMessage(error), error instanceof RunFailure && error.fatal, spentCredits(error));
      },
    );
  }

  /** Records what a node answered (its output, its captures); answers the handle to follow. */
  private executed(node: GraphNode, facts: NodeFacts | undefined, outcome: NodeOutcome): string {
    const { state } = this;
    if (outcome.suspend) throw new Suspended(node.nodeId);
    state.outputs[node.nodeId] = outcome.output;
    state.record(node, {
      success: true,
      ...(outcome.output === undefined ? {} : { output: outcome.output }),
      ...(outcome.aiCredits ? { aiCredits: outcome.aiCredits } : {}),
    });
    if (facts?.captures) applyCaptures(facts.captures, node, outcome.output, state.variables);
    return outcome.handle || 'default';
  }

  /** Runs an ITERATION: its body once per item; answers `empty` or `completed`. */
  private async loop(node: GraphNode, loops: readonly LoopFrame[]): Promise<string> {
    const { state } = this;
    const found = loopItems(node, state.scope(loops));
    if (!found.ok) throw state.fail(node, found.message);
    const { items } = found;
    if (items.length > state.maxLoopItems) {
      throw state.fail(node, `ITERATION ${describe(node)} has ${items.length} items; at most ${state.maxLoopItems} are allowed per loop`, true);
    }
    const summary: LoopSummary = { length: items.length, iterations: 0, failed: [], broken: false };
    const result = state.record(node, { success: true, output: { ...summary, failed: [] } });
    state.outputs[node.nodeId] = result.output;
    if (items.length === 0) return 'empty';
    const body = state.next(node, 'body');
    try {
      for (let index = 0; index < items.length && body !== undefined; index += 1) {
        summary.iterations += 1;
        const frame: LoopFrame = { nodeId: node.nodeId, vars: { item: items[index], index, length: items.length } };
        try {
          if ((await this.walk(body, [...loops, frame])) === 'break') {
            summary.broken = true;
            break;
          }
        } catch (error) {
          if (!(error instanceof RunFailure) || error.fatal || node.data.continueOnError !== true) throw error;
          summary.failed.push({ index, nodeId: error.nodeId, message: error.message });
        }
      }
    } finally {
      // The summary is written even when the run fails inside the body, so the log shows how far the loop got.
      result.output = state.outputs[node.nodeId] = { ...summary, failed: [...summary.failed] };
    }
    return 'completed';
  }
}

/**
 * Runs the graph from `entryNodeId`. Resolves with the run's result, failed or not; rejects only with an error
 * of `executeNode` that `options.propagate` claims (such as a cancellation).
 */
export async function interpret(graph: Graph, entryNodeId: string, executeNode: ExecuteNode, options: InterpretOptions = {}): Promise<RunResult> {
  const state = new RunState(graph, options);
  const finish = (error?: RunFailure, suspendedAt?: string): RunResult => ({
    successful: !error,
    ...(error ? { error: { nodeId: error.nodeId, message: error.message } } : {}),
    ...(suspendedAt ? { suspendedAt } : {}),
    steps: state.steps,
    nodeResults: state.results,
    variables: { ...state.variables },
  });
  try {
    await new Interpreter(state, executeNode).walk(entryNodeId, []);
    return finish();
  } catch (error) {
    if (error instanceof RunFailure) return finish(error);
    if (error instanceof Suspended) return finish(undefined, error.nodeId);
    throw error;
  }
}
