import type { Issue } from '../../../lib/errors.js';
import { isRecord } from './compose.js';
import { knownReference, notFound, referencedVariables, type NodeCheckContext } from './types.js';

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
