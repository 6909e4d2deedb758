import type { Issue } from '../../lib/errors.js';
import { isRecord } from './compose.js';
import { knownReference, notFound, referencedVariables, type NodeCheckContext } from './check-context.js';

/**
 * `not_found` for each `{name}` in an interpolable value that cannot resolve (SPEC.md, Variables and
 * interpolation). Objects and arrays are walked, so each issue names the innermost field (`rowData.Email`,
 * `templateVariables.body.1`); `path` is relative to `data`.
 */
export function unknownReferences(path: string, value: unknown, ctx: NodeCheckContext): Issue[] {
  if (typeof value === 'string') {
    return referencedVariables(value)
      .filter((name) => !knownReference(name, ctx))
      .map((name) => notFound(path, `variable "${name}" does not exist`));
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => unknownReferences(`${path}[${i}]`, item, ctx));
  if (isRecord(value)) return Object.entries(value).flatMap(([key, item]) => unknownReferences(`${path}.${key}`, item, ctx));
  return [];
}

/** Whether a text holds at least one `{…}` placeholder, whose value is only known at run time. */
export function isInterpolated(text: string): boolean {
  return /\{[^{}]+\}/.test(text);
}

/** The values at an interpolated field path (`headers[].value` yields each item's value), with their issue paths. */
export function valuesAt(value: unknown, steps: readonly string[], path: string): [string, unknown][] {
  if (steps.length === 0) return [[path, value]];
  const [first, ...rest] = steps as [string, ...string[]];
  const each = first.endsWith('[]');
  const key = each ? first.slice(0, -2) : first;
  if (!isRecord(value) || !Object.hasOwn(value, key)) return [];
  const field = value[key];
  const at = path ? `${path}.${key}` : key;
  if (!each) return valuesAt(field, rest, at);
  return Array.isArray(field) ? field.flatMap((item, i) => valuesAt(item, rest, `${at}[${i}]`)) : [];
}

/** `not_found` for each reference in the node's interpolated fields that can never resolve. */
export function unknownReferencesIn(fields: readonly string[], data: Record<string, unknown>, ctx: NodeCheckContext): Issue[] {
  return fields.flatMap((field) => valuesAt(data, field.split('.'), '').flatMap(([path, value]) => unknownReferences(path, value, ctx)));
}
