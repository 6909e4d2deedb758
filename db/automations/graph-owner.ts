/**
 * What the graph service needs to know about the owner of a graph (a workflow, or an agent's flow): where its draft
 * is, how its node ids look, which variables its nodes may use, and the rules that span the whole graph.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Issue } from '../../lib/errors.js';
import type { Graph } from '../../lib/graph/graph.js';
import type { DeclaredVariable } from './graph-rules.js';

export interface GraphOwner {
  accountId: number;
  draftSnapshotId: string;
  /** Who declares the variables (`workflow` or `agent`), for messages. */
  variablesOf: 'workflow' | 'agent';
  /** The automation, when the owner is one (its EXTERNAL_TRIGGER subscriptions are indexed under it). */
  automationId?: number;
  /** The owning agent of a flow. */
  agentId?: string;
  /** Node ids a client may give; `describe` says the form in messages. */
  nodeId: { pattern: RegExp; describe: string };
  /** A node id for a node of `type` that no node of `graph` has. */
  newNodeId(graph: Graph, type: string): string;
  /** The declared variables (capture targets, `{name}` sources). */
  variables(em: EntityManager): Promise<DeclaredVariable[]>;
  /** Names every graph of the owner may reference besides its declared variables and nodes. */
  builtIns: readonly string[];
  /** Rules over the whole graph, checked after every node or edge edit (issue paths as the request names them). */
  rules?(graph: Graph): Issue[];
  /** Keeps the owner's metadata in step with the graph it saves (a workflow's trigger type). */
  onSave?(graph: Graph): void;
}
