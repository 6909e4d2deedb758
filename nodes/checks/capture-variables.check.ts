/**
 * Capture targets (SPEC.md, Variables and interpolation, "Capturing values into variables"): each node type
 * captures through one field; the other capture field on a node is not its own, so it is left as sent, unchecked.
 */
import type { DeclaredVariable } from '../../db/automations/graph-rules.js';
import type { Issue } from '../../lib/errors.js';
import { isRecord } from './compose.js';
import { invalid, notFound, type NodeCheck } from './check-context.js';

/** A capture target as stored on the node: the variable record of SPEC.md. */
export type { DeclaredVariable as CapturedVariable } from '../../db/automations/graph-rules.js';

/**
 * TOOLS_AI, AI_CAPTURE, TRANSCRIPTION, RESPONSE_AI: `captureVariables` items `{ name }` or `{ id }` name variables of
 * this workflow (of the agent, in a flow) (the id wins when both are sent, so a renamed variable keeps its captures); they are saved resolved as
 * `{ id, name, description }`.
 */
export const checkCaptureVariables: NodeCheck = (node, { declared: variables, variablesOf }) => {
  const items = node.data.captureVariables;
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) return [invalid('captureVariables', `must be an array of { name } or { id } of ${variablesOf} variables`)];
  const issues: Issue[] = [];
  const resolved: DeclaredVariable[] = [];
  items.forEach((item, i) => {
    const path = `captureVariables[${i}]`;
    const { id, name } = isRecord(item) ? item : {};
    let variable: DeclaredVariable | undefined;
    if (Number.isInteger(id)) {
      variable = variables.find((v) => v.id === id);
      if (!variable) issues.push(notFound(path, `variable ${id} does not exist in this ${variablesOf}`));
    } else if (typeof name === 'string' && name) {
      variable = variables.find((v) => v.name === name);
      if (!variable) issues.push(notFound(path, `variable "${name}" does not exist in this ${variablesOf}`));
    } else {
      issues.push(invalid(path, `must be { name } or { id } of ${variablesOf === 'agent' ? 'an' : 'a'} ${variablesOf} variable`));
    }
    if (variable) resolved.push({ id: variable.id, name: variable.name, description: variable.description });
  });
  if (!issues.length) node.data.captureVariables = resolved;
  return issues;
};

/** A response path as the API node reads it: dot and `[n]` property access, optional leading dot; no JSONPath. */
const SIMPLE_PATH = /^(?:\.?[^.[\]$*?@]+|\[\d+\])(?:\.[^.[\]$*?@]+|\[\d+\])*$/;

/**
 * API: `variables` items `{ key, value, fullResponse }`. `key` names a declared variable of the workflow; `value` is
 * a path into the JSON response (empty: the whole body); `fullResponse`, when sent, is a boolean.
 */
export const checkApiVariables: NodeCheck = (node, { declared, variablesOf }) => {
  const items = node.data.variables;
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) return [invalid('variables', 'must be an array of { key, value, fullResponse }')];
  return items.flatMap((item, i): Issue[] => {
    const path = `variables[${i}]`;
    if (!isRecord(item)) return [invalid(path, 'must be { key, value, fullResponse }')];
    const { key, value, fullResponse } = item;
    const issues: Issue[] = [];
    if (typeof key !== 'string' || !key)
      issues.push(invalid(`${path}.key`, `must be the name of ${variablesOf === 'agent' ? 'an' : 'a'} ${variablesOf} variable`));
    else if (!declared.some((v) => v.name === key)) issues.push(notFound(`${path}.key`, `variable "${key}" does not exist in this ${variablesOf}`));
    if (value !== undefined && typeof value !== 'string')
      issues.push(invalid(`${path}.value`, 'must be a path string such as "data.items[0].id" (empty for the whole body)'));
    else if (value && !SIMPLE_PATH.test(value)) {
      issues.push(invalid(`${path}.value`, 'must be simple property access such as "data.items[0].id": no JSONPath ($, wildcards, filters)'));
    }
    if (fullResponse !== undefined && typeof fullResponse !== 'boolean') issues.push(invalid(`${path}.fullResponse`, 'must be a boolean'));
    return issues;
  });
};
