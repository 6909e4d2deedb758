/**
 * What the graph service needs to know about node types, handed in by its caller (the node registry of
 * `activities/nodes/registry.ts`), so db/ depends on no node module.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Issue } from '../../lib/errors.js';
import type { Graph, GraphNode } from '../../lib/graph/graph.js';

/** What a node check receives besides the node. */
export interface NodeCheckContext {
  em: EntityManager;
  accountId: number;
  workflowId: number;
  /** The graph as it will be once the change is saved. */
  graph: Graph;
  /** Names of the workflow's declared variables. */
  variables: Set<string>;
}

export interface NodeCatalog {
  /** Node types this kind of graph may hold. */
  types: readonly string[];
  /** The problems of a node's data (its type's checks, references to account resources and variables). */
  check(node: GraphNode, ctx: NodeCheckContext): Promise<Issue[]>;
  /** The output handles an edge may leave the node from. */
  handles(node: GraphNode): readonly string[];
}
