/** The contract of node executors: one file per node type, listed in `index.ts`. */
import type { GraphNode } from '../../lib/graph/graph.js';
import type { NodeOutcome } from '../../workflows/interpreter/types.js';
import type { Orm } from '../../db/orm.js';

export interface ExecuteNodeArgs {
  accountId: number;
  workflowId: number;
  node: GraphNode;
  /** The node's data with its interpolable fields filled. */
  data: GraphNode['data'];
  triggerPayload: unknown;
}

export interface ExecutorDeps {
  orm: Orm;
  /** Timeout of outgoing HTTP calls of API nodes. */
  httpTimeoutMs: number;
}

export type NodeExecutor = (args: ExecuteNodeArgs, deps: ExecutorDeps) => Promise<NodeOutcome>;
