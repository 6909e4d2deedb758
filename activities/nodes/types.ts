/** The contract of node executors: one file per node type, listed in `index.ts`. */
import type { Client } from '@temporalio/client';
import type { GraphNode } from '../../lib/graph/graph.js';
import type { NodeOutcome } from '../../workflows/interpreter/types.js';
import type { Orm } from '../../db/orm.js';
import type { OutboxNotifier } from '../../db/outbox-notifier.js';

export interface ExecuteNodeArgs {
  accountId: number;
  workflowId: number;
  node: GraphNode;
  /** The node's data with its interpolable fields filled. */
  data: GraphNode['data'];
  triggerPayload: unknown;
  /**
   * The automations whose runs led to this node, this one last. Events the node causes (row writes) carry it, so
   * the dispatcher can stop a run that would close a loop.
   */
  chain?: number[];
}

export interface ExecutorDeps {
  orm: Orm;
  /** Temporal client, for nodes that change other automations (their schedules). */
  temporal: Client;
  /** Task queue runs started by nodes go to. */
  taskQueue: string;
  /** Timeout of outgoing HTTP calls of API nodes. */
  httpTimeoutMs: number;
  /** Wakes the outbox dispatchers after a node that may have written events (row changes). */
  outbox?: OutboxNotifier;
}

export type NodeExecutor = (args: ExecuteNodeArgs, deps: ExecutorDeps) => Promise<NodeOutcome>;
