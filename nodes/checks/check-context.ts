/** What a node check receives, and what it answers: the problems of one node's data (empty when valid); helpers. */
import type { NodeCheckContext } from '../../db/automations/graph-rules.js';
import type { Issue } from '../../lib/errors.js';
import type { GraphNode } from '../../lib/graph/graph.js';

export type { NodeCheckContext } from '../../db/automations/graph-rules.js';

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

/**
 * `{name}` references in a text, with any path after the name (`{trigger_payload.customer.email}`,
 * `{lookup.items[0].id}`, `{loop.item}`); braces around anything else (JSON text) are not references.
 */
export function referencedVariables(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return [...text.matchAll(/\{([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+|\[\d+\])*)\}/g)].map((m) => m[1]!);
}

/** Whether a name is a declared or built-in variable (`trigger_payload` in workflows), a node id or alias. */
function knownName(name: string, ctx: NodeCheckContext): boolean {
  return ctx.variables.has(name) || ctx.graph.nodes.some((n) => n.nodeId === name || n.alias === name);
}

/**
 * Whether a reference can resolve at run time: the reference itself, or a leading part of it followed by a path
 * (`a.b[0]` is known when `a.b[0]`, `a.b` or `a` is), names something. Whether the path finds a value depends on
 * the data of the run.
 */
export function knownReference(reference: string, ctx: NodeCheckContext): boolean {
  if (knownName(reference, ctx)) return true;
  for (let i = reference.length - 1; i > 0; i -= 1) {
    if ((reference[i] === '.' || reference[i] === '[') && knownName(reference.slice(0, i), ctx)) return true;
  }
  return false;
}
