/** The array an ITERATION loops over (SPEC.md, ITERATION node data). */
import type { GraphNode } from '../../lib/graph/graph.js';
import { lookup, type Scope } from '../../lib/runtime/interpolate.js';
import { extractPath, parseJsonValue } from '../../lib/runtime/path.js';

/** The items, or why there are none to loop over. */
export type LoopItems = { ok: true; items: unknown[] } | { ok: false; message: string };

/**
 * `variableName` names a declared variable, a node (id or alias: its output) or, inside another loop, a loop form
 * such as `<loopNodeId>.item`; `variablePath` optionally points inside it. Values stored as JSON strings are parsed.
 * Nothing there (unset, missing path step, null, or an empty string) is an empty list; another non-array fails.
 */
export function loopItems(node: GraphNode, scope: Scope): LoopItems {
  const { variableName, variablePath } = node.data;
  if (typeof variableName !== 'string' || !variableName) return { ok: false, message: 'ITERATION has no variableName' };
  const ref = lookup(scope, variableName);
  let value = ref.found ? parseJsonValue(ref.value) : undefined;
  if (typeof variablePath === 'string' && variablePath.trim() !== '') {
    const inside = extractPath(value, variablePath);
    value = inside.found ? parseJsonValue(inside.value) : undefined;
  }
  if (value === undefined || value === null || value === '') return { ok: true, items: [] };
  if (!Array.isArray(value)) {
    const kind = typeof value === 'object' ? 'an object' : `a ${typeof value}`;
    const where = typeof variablePath === 'string' && variablePath.trim() ? `${variableName} at ${variablePath}` : variableName;
    return { ok: false, message: `ITERATION needs an array, but ${where} is ${kind}` };
  }
  return { ok: true, items: value };
}
