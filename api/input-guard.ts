/**
 * Structural limits every request input passes before schema validation, one rule for every route: JSON nested
 * deeper than `MAX_INPUT_DEPTH` is refused before anything recursive (ajv, the filter compiler, Temporal's payload
 * converter) sees it, and no string or object key may hold the NUL character, which PostgreSQL text cannot store.
 * The walk is iterative, so it cannot overflow the stack whatever it is given.
 */
import { BadRequestError, type Issue } from '../lib/errors.js';

/** Deepest nesting of objects and arrays accepted in a body, query or path parameters. */
export const MAX_INPUT_DEPTH = 64;
const MAX_ISSUES = 20;

const NUL_MESSAGE = 'must not contain the NUL character (\\u0000): PostgreSQL text cannot hold it';

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * Throws a 400 naming the offending field when `value` is nested too deeply or holds a NUL character; paths start
 * at the body (as validation issues do), query and path parameters are prefixed with `query.` / `params.`.
 */
export function guardInput(value: unknown, location: 'body' | 'query' | 'params'): void {
  const root = location === 'body' ? '' : location;
  const issues: Issue[] = [];
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: root, depth: 0 }];
  while (stack.length && issues.length < MAX_ISSUES) {
    const { value: current, path, depth } = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) issues.push({ code: 'invalid', path: path || location, message: NUL_MESSAGE });
      continue;
    }
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= MAX_INPUT_DEPTH) {
      const message = `is nested more than ${MAX_INPUT_DEPTH} levels deep; at most ${MAX_INPUT_DEPTH} levels of objects and arrays are accepted`;
      throw new BadRequestError(`Invalid ${location}: ${path || location} ${message}`, [{ code: 'too_deep', path: path || location, message }]);
    }
    if (Array.isArray(current)) {
      current.forEach((item, i) => stack.push({ value: item, path: childPath(path, i), depth: depth + 1 }));
      continue;
    }
    for (const [key, item] of Object.entries(current)) {
      const at = childPath(path, key);
      if (key.includes('\u0000')) issues.push({ code: 'invalid', path: at, message: `its key ${NUL_MESSAGE}` });
      stack.push({ value: item, path: at, depth: depth + 1 });
    }
  }
  if (issues.length) throw new BadRequestError(`Invalid ${location}: ${issues[0]!.path} ${issues[0]!.message}`, issues);
}
