/** What a node check receives, and what it answers: the problems of one node's data (empty when valid). */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Issue } from '../../../lib/errors.js';
import type { Graph, GraphNode } from '../../../lib/graph/graph.js';

export interface NodeCheckContext {
  em: EntityManager;
  accountId: number;
  workflowId: number;
  /** The graph as it will be once the change is saved. */
  graph: Graph;
  /** Names of the workflow's declared variables. */
  variables: Set<string>;
}

export type NodeCheck = (node: GraphNode, ctx: NodeCheckContext) => Promise<Issue[]> | Issue[];

export const invalid = (path: string, message: string): Issue => ({ code: 'invalid', path: `data.${path}`, message });
export const missing = (path: string, message = 'is required'): Issue => ({ code: 'required', path: `data.${path}`, message });
export const notFound = (path: string, message: string): Issue => ({ code: 'not_found', path: `data.${path}`, message });

/** A URL the node may call: http(s); `{variable}` parts are filled at run time, so they are checked as placeholders. */
export function isValidUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !value.trim()) return false;
  try {
    const url = new URL(value.replace(/\{[^{}]+\}/g, 'x'));
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** `{name}` references in a text (loop forms `{node.item}` name the loop node). */
export function referencedVariables(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return [...text.matchAll(/\{([A-Za-z_][A-Za-z0-9_-]*)(?:\.(?:item|index|length))?\}/g)].map((m) => m[1]!);
}

/** Whether `{name}` can resolve: a declared variable, a node id or alias, or the built-in trigger payload. */
export function knownReference(name: string, ctx: NodeCheckContext): boolean {
  return name === 'trigger_payload' || ctx.variables.has(name) || ctx.graph.nodes.some((n) => n.nodeId === name || n.alias === name);
}
