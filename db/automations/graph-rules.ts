/**
 * What the graph service needs to know about node types, handed in by its caller (the node registry of
 * `nodes/registry.ts`), so db/ depends on no node module.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Issue } from '../../lib/errors.js';
import type { Graph, GraphNode } from '../../lib/graph/graph.js';

/** A declared variable of a workflow or an agent, as captures store it. */
export interface DeclaredVariable {
  id: number;
  name: string;
  description: string;
}

/** What a node check receives besides the node. */
export interface NodeCheckContext {
  em: EntityManager;
  accountId: number;
  /** The graph as it will be once the change is saved. */
  graph: Graph;
  /** Names a `{reference}` may start with: the declared variables and the owner's built-in ones. */
  variables: Set<string>;
  /** The declared variables, capture targets of the node. */
  declared: DeclaredVariable[];
  /** Who declares the variables, for messages: `workflow` or `agent`. */
  variablesOf: 'workflow' | 'agent';
  /** The agent owning the flow (flows only): intents are the agent's. */
  agentId?: string;
}

/** What one kind of graph (automations', flows') may hold, and how its nodes and edges are checked. */
export interface GraphRules {
  /** Node types this kind of graph may hold. */
  types: readonly string[];
  /** Types of the other kind of graph refused with a message saying what to use instead. */
  refused?: Readonly<Record<string, string>>;
  /** The problems of a node's data (its type's checks, references to account resources and variables). */
  check(node: GraphNode, ctx: NodeCheckContext): Promise<Issue[]>;
  /** The output handles an edge may leave the node from. */
  handles(node: GraphNode): readonly string[];
  /** Names of the variables a node reads (`{name}` in its interpolated fields) or captures into. */
  variablesUsed(node: GraphNode): string[];
}
