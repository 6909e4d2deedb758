/** The mutable state of one interpreted run: graph lookups, step count, outputs, variables and node results. */
import type { Graph, GraphNode } from '../../lib/graph/graph.js';
import type { NodeFacts } from '../../lib/runtime/contract.js';
import type { LoopVariables, Scope } from '../../lib/runtime/interpolate.js';
import type { InterpretOptions, NodeResult } from './types.js';

/**
 * Why a path stopped. A `fatal` failure ends the run even inside an ITERATION with `continueOnError` (run limits,
 * a broken graph); any other is the failure of one node, which such a loop records and skips.
 */
export class RunFailure extends Error {
  constructor(
    readonly nodeId: string,
    message: string,
    readonly fatal = false,
  ) {
    super(message);
    this.name = 'RunFailure';
  }
}

/** One active ITERATION: its node and its loop variables. */
export interface LoopFrame {
  nodeId: string;
  vars: LoopVariables;
}

export class RunState {
  readonly results: NodeResult[] = [];
  readonly outputs: Record<string, unknown> = {};
  readonly variables: Record<string, unknown>;
  readonly aliases: Record<string, string> = {};
  readonly maxSteps: number;
  readonly maxLoopItems: number;
  steps = 0;
  private readonly nodes = new Map<string, GraphNode>();
  private readonly edges = new Map<string, string>();
  /** Nodes with at least one edge leaving them. */
  private readonly sources = new Set<string>();

  constructor(
    graph: Graph,
    readonly options: InterpretOptions,
  ) {
    this.maxSteps = options.maxSteps ?? 500;
    this.maxLoopItems = options.maxLoopItems ?? 50;
    this.variables = { ...options.variables };
    if (options.resumed) {
      this.results.push(...options.resumed.nodeResults);
      Object.assign(this.outputs, options.resumed.outputs);
      this.steps = options.resumed.nodeResults.length;
    }
    for (const node of graph.nodes) {
      this.nodes.set(node.nodeId, node);
      if (node.alias && !Object.hasOwn(this.aliases, node.alias)) this.aliases[node.alias] = node.nodeId;
    }
    // The global list is authoritative; inline edges only fill in what it lacks (both agree once normalized).
    for (const edge of [...graph.edges, ...graph.nodes.flatMap((n) => n.edges ?? [])]) {
      const key = `${edge.source}\u0000${edge.handle}`;
      if (!this.edges.has(key)) this.edges.set(key, edge.targetEdge);
      this.sources.add(edge.source);
    }
  }

  node(nodeId: string): GraphNode {
    const node = this.nodes.get(nodeId);
    if (!node) throw new RunFailure(nodeId, `node ${nodeId} is not in the graph`, true);
    return node;
  }

  /** What the run knows of the node's type (undefined: nothing is interpolated or captured). */
  facts(node: GraphNode): NodeFacts | undefined {
    const all = this.options.nodeFacts ?? {};
    return Object.hasOwn(all, node.type) ? all[node.type] : undefined;
  }

  /** The node the edge of `handle` leads to; undefined ends the path. */
  next(node: GraphNode, handle: string): string | undefined {
    return this.edges.get(`${node.nodeId}\u0000${handle}`);
  }

  /** Whether any edge leaves `node` (when none does, every path through it ends there). */
  hasEdges(node: GraphNode): boolean {
    return this.sources.has(node.nodeId);
  }

  /** Counts the step of executing `node`, failing the run instead when it would pass the limit. */
  countStep(node: GraphNode): void {
    if (this.steps >= this.maxSteps) {
      throw new RunFailure(node.nodeId, `Run exceeded ${this.maxSteps} steps: node ${describe(node)} was not executed`, true);
    }
    this.steps += 1;
  }

  /** What `{NAME}` can refer to now, as a copy that later steps do not change. */
  scope(loops: readonly LoopFrame[]): Scope {
    return {
      variables: { ...this.variables },
      nodeOutputs: { ...this.outputs },
      aliases: this.aliases,
      triggerPayload: this.options.triggerPayload,
      loops: Object.fromEntries(loops.map((frame) => [frame.nodeId, frame.vars])),
    };
  }

  /** Appends the result of an executed node; the returned object may be completed later (ITERATION). */
  record(
    node: GraphNode,
    outcome: { success: true; output?: unknown; aiCredits?: number } | { success: false; error: string; aiCredits?: number },
  ): NodeResult {
    const result: NodeResult = { nodeId: node.nodeId, alias: node.alias, type: node.type, ...outcome };
    if (this.options.now) result.createdAt = new Date(this.options.now()).toISOString();
    this.results.push(result);
    this.options.onRecord?.(result);
    return result;
  }

  /** Records a failed node (with the AI credits it spent before failing) and gives the failure to throw. */
  fail(node: GraphNode, message: string, fatal = false, aiCredits = 0): RunFailure {
    this.record(node, { success: false, error: message, ...(aiCredits ? { aiCredits } : {}) });
    return new RunFailure(node.nodeId, message, fatal);
  }
}

export function describe(node: GraphNode): string {
  return node.alias ? `${node.nodeId} (${node.alias})` : node.nodeId;
}

/** The AI credits a failed node spent, when its error says (a numeric `aiCredits`); 0 otherwise. */
export function spentCredits(error: unknown): number {
  const credits = (error as { aiCredits?: unknown } | null)?.aiCredits;
  return typeof credits === 'number' ? credits : 0;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' ? error : String(error);
}
