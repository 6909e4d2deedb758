/** The contract between the automation interpreter and whoever runs its nodes (the workflow, or a test fake). */
import type { GraphNode } from '../../lib/graph/graph.js';
import type { NodeFactsByType, NodeOutcome, NodeResult } from '../../lib/runtime/contract.js';
import type { Scope } from '../../lib/runtime/interpolate.js';

export type { NodeOutcome, NodeResult, RunResult } from '../../lib/runtime/contract.js';

/** What a node receives besides itself. */
export interface NodeInput {
  /** The node's `data` with its interpolable fields (`NodeFacts.interpolated`) filled from `scope`. */
  interpolatedData: GraphNode['data'];
  /** Everything `{NAME}` could refer to when the node started, for nodes that interpolate more themselves. */
  scope: Scope;
  /** The step this execution is (1 for the entry node): with the run, it names the execution on every attempt. */
  step: number;
  /** The run ends when this node succeeds: no loop encloses it and no edge leaves it. */
  final?: boolean;
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
  /** What the run knows of each node type (interpolated fields, captures); a type not listed has neither. */
  nodeFacts?: NodeFactsByType;
  /** Declared variables of the automation with a value at the start of the run. */
  variables?: Record<string, unknown>;
  /**
   * Errors of `executeNode` for which this answers true are not node failures: they leave `interpret` as thrown
   * (the workflow passes Temporal's `isCancellation`, so a cancelled run is not reported as a failed node).
   */
  propagate?: (error: unknown) => boolean;
  /** The clock of node results' `createdAt` (the workflow's deterministic time); omitted: no timestamps. */
  now?: () => number;
  /**
   * A retry from a failed node: the run starts with these results, outputs and step count already recorded, as the
   * retried run had them (the walk starts at the failed node; `variables` gives the variables).
   */
  resumed?: { nodeResults: NodeResult[]; outputs: Record<string, unknown> };
  /** Called with each node result as it is recorded (the workflow counts the nodes of a run that is cancelled). */
  onRecord?: (result: NodeResult) => void;
}
