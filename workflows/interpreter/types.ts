/** The contract between the automation interpreter and whoever runs its nodes (the workflow, or a test fake). */
import type { GraphNode } from '../../lib/graph/graph.js';
import type { Scope } from '../../lib/runtime/interpolate.js';

/** What a node receives besides itself. */
export interface NodeInput {
  /** The node's `data` with its interpolable fields (`INTERPOLATED_FIELDS`) filled from `scope`. */
  interpolatedData: GraphNode['data'];
  /** Everything `{NAME}` could refer to when the node started, for nodes that interpolate more themselves. */
  scope: Scope;
}

/**
 * What a node answers. `output` becomes the runtime variable `{<nodeId>}` (an API node's output is its response
 * body, parsed when JSON; nodes with `captureVariables` may answer `{ captures: { name: value } }`). `handle` is the
 * output port to follow, e.g. the id of the condition that matched; `default` when omitted.
 */
export interface NodeOutcome {
  output?: unknown;
  handle?: string;
  /** AI credits the node spent (AI nodes); 0 when omitted. */
  aiCredits?: number;
}

/** Runs one node; a thrown error is the node's failure. */
export type ExecuteNode = (node: GraphNode, input: NodeInput) => Promise<NodeOutcome>;

export interface InterpretOptions {
  /** Executed nodes per run; executing one more fails the run before it runs (default 500). */
  maxSteps?: number;
  /** Items one ITERATION may loop over; more fail the run before the body starts (default 50). */
  maxLoopItems?: number;
  /** The delivered trigger event, `{trigger_payload}`. */
  triggerPayload?: unknown;
  /** Declared workflow variables with a value at the start of the run. */
  variables?: Record<string, unknown>;
  /**
   * Errors of `executeNode` for which this answers true are not node failures: they leave `interpret` as thrown
   * (the workflow passes Temporal's `isCancellation`, so a cancelled run is not reported as a failed node).
   */
  propagate?: (error: unknown) => boolean;
  /** The clock of node results' `createdAt` (the workflow's deterministic time); omitted: no timestamps. */
  now?: () => number;
  /** Called with each node result as it is recorded (the workflow counts the nodes of a run that is cancelled). */
  onRecord?: (result: NodeResult) => void;
}

/** One executed node, in execution order. */
export interface NodeResult {
  nodeId: string;
  alias: string;
  type: string;
  success: boolean;
  error?: string;
  output?: unknown;
  aiCredits?: number;
  /** ISO time the node finished (when the interpreter was given a clock). */
  createdAt?: string;
}

export interface RunResult {
  successful: boolean;
  /** Why the run failed: the node that failed (or would have been executed) and the message. */
  error?: { nodeId: string; message: string };
  /** Executed nodes, BREAK and ITERATION included. */
  steps: number;
  nodeResults: NodeResult[];
  /** Declared workflow variables at the end of the run (initial values and captures). */
  variables: Record<string, unknown>;
}
