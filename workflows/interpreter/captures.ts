/**
 * Capturing node outputs into declared variables of the automation (SPEC.md, "Capturing values into variables"). Each node
 * type captures through its own field only (its `NodeFacts.captures`); the other field is ignored. Captured values are stored as
 * `toVariableString` renders them (objects and arrays as JSON); a value that is missing or null leaves the variable
 * as it was, without error.
 */
import type { GraphNode } from '../../lib/graph/graph.js';
import type { CaptureKind } from '../../lib/runtime/contract.js';
import { extractPath, parseJsonValue, toVariableString, type PathResult } from '../../lib/runtime/path.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function store(variables: Record<string, unknown>, name: string, found: PathResult): void {
  const text = found.found ? toVariableString(found.value) : undefined;
  if (text !== undefined) variables[name] = text;
}

/**
 * API `variables[]` items `{ key, value, fullResponse }`, read from the node's output (the response body): the whole
 * body when `fullResponse` is true or `value` is empty, else the value at the path `value` (a body still held as a
 * JSON string is parsed first; a text body has no paths).
 */
function captureApiVariables(items: unknown, output: unknown, variables: Record<string, unknown>): void {
  if (!Array.isArray(items)) return;
  for (const item of items) {
    if (!isRecord(item) || typeof item.key !== 'string' || !item.key) continue;
    const path = typeof item.value === 'string' ? item.value.trim() : '';
    const whole = item.fullResponse === true || path === '';
    store(variables, item.key, whole ? extractPath(output, '') : extractPath(parseJsonValue(output), path));
  }
}

/** `captureVariables` items (`{ id, name, description }` as saved): the values the node answered in `output.captures`. */
function captureNamedVariables(items: unknown, output: unknown, variables: Record<string, unknown>): void {
  if (!Array.isArray(items) || !isRecord(output) || !isRecord(output.captures)) return;
  const captures = output.captures;
  for (const item of items) {
    if (!isRecord(item) || typeof item.name !== 'string' || !Object.hasOwn(captures, item.name)) continue;
    store(variables, item.name, { found: true, value: captures[item.name] });
  }
}

/** Writes the captures of an executed node into `variables`, through the field its type captures with. */
export function applyCaptures(kind: CaptureKind, node: GraphNode, output: unknown, variables: Record<string, unknown>): void {
  if (kind === 'apiVariables') captureApiVariables(node.data.variables, output, variables);
  else captureNamedVariables(node.data.captureVariables, output, variables);
}
