import type { Issue } from '../../lib/errors.js';
import type { NodeCheck } from './check-context.js';

/**
 * One check made of several, run in order on the same node (a check may normalize `node.data` for the next).
 * Every check runs, so a request learns all its problems at once; two checks reporting the same code at the
 * same path (a shape rule shared by a type's own check and a cross-type one) yield one issue, the first.
 */
export function allOf(...checks: NodeCheck[]): NodeCheck {
  if (checks.length === 1) return checks[0]!;
  return async (node, ctx) => {
    const issues: Issue[] = [];
    const seen = new Set<string>();
    for (const check of checks) {
      for (const issue of await check(node, ctx)) {
        const key = `${issue.code} ${issue.path}`;
        if (seen.has(key)) continue;
        seen.add(key);
        issues.push(issue);
      }
    }
    return issues;
  };
}

/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
