/**
 * The one query filter of the data plane, compiled to a SQL condition over a row table. Used by row lists,
 * counts, exports, views, formula `applyIf` / `ifElse` and aggregate `filter`. Shape: QueryFilterSchema.
 *
 *   compileFilter({ or: [{ field: 'Name', operator: 'contains', value: 'acme' }, { field: 'Amount', operator: 'gt', value: 5 }] },
 *     fields, { alias: 'r' })
 *   → { sql: '(?? ilike ? or ?? > ?::numeric)', bindings: ['r.f_3', '%acme%', 'r.f_4', 5] }
 *
 * The result goes to `knex.raw(sql, bindings)` / `whereRaw(sql, bindings)`: identifiers are `??` bindings and
 * values `?` bindings, so no user input is ever part of the SQL text.
 */
import { BadRequestError, type Issue } from '../../../lib/errors.js';
import type { FieldModel } from '../types.js';
import { compileCondition } from './conditions.js';
import { joinFragments, MATCH_ALL, MATCH_NONE, type SqlFragment } from './fragment.js';
import { resolveOperand } from './operand.js';
import { isFilterOperator, OPERATORS_BY_TYPE, VALUELESS_OPERATORS } from './operators.js';

export { OPERATORS_BY_TYPE } from './operators.js';
export type { FilterOperator, OperandKind } from './operators.js';

/** Most nested groups (`and` / `or`) on any path; the outermost group counts 1. */
export const MAX_FILTER_DEPTH = 5;
/** Most conditions in one filter. */
export const MAX_FILTER_CONDITIONS = 100;

export interface CompileFilterOptions {
  /** Alias (or name) of the row table in the surrounding query. */
  alias: string;
  /** Path of the filter in the request, the root of issue paths; `filter` unless given. */
  path?: string;
}

const GROUP_KEYS = ['and', 'or'] as const;
const CONDITION_KEYS = ['field', 'operator', 'value'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class FilterCompiler {
  readonly issues: Issue[] = [];
  private conditions = 0;
  private subqueries = 0;

  constructor(
    private readonly fields: readonly FieldModel[],
    private readonly alias: string,
  ) {}

  private issue(code: string, path: string, message: string): SqlFragment {
    this.issues.push({ code, path, message });
    return MATCH_NONE;
  }

  node(node: unknown, path: string, depth: number): SqlFragment {
    if (!isPlainObject(node)) {
      return this.issue('invalid', path, 'must be an object: a group { "and" | "or": [...] } or a condition { field, operator, value }');
    }
    const groupKeys = GROUP_KEYS.filter((key) => key in node);
    if (groupKeys.length > 1) return this.issue('invalid', path, 'must have either "and" or "or", not both');
    const groupKey = groupKeys[0];
    if (groupKey) return this.group(node, groupKey, path, depth + 1);
    return this.condition(node, path);
  }

  private group(node: Record<string, unknown>, key: 'and' | 'or', path: string, depth: number): SqlFragment {
    for (const extra of Object.keys(node).filter((k) => k !== key)) {
      this.issue('unknown_field', `${path}.${extra}`, `is not allowed in a group (a group has only "${key}")`);
    }
    if (depth > MAX_FILTER_DEPTH) {
      return this.issue('too_deep', path, `nests groups deeper than ${MAX_FILTER_DEPTH} levels`);
    }
    const children = node[key];
    const childPath = `${path}.${key}`;
    if (!Array.isArray(children) || children.length === 0) {
      return this.issue('invalid', childPath, 'must be a non-empty array of filters');
    }
    const parts: SqlFragment[] = [];
    for (const [index, child] of children.entries()) {
      if (this.conditions > MAX_FILTER_CONDITIONS) break;
      parts.push(this.node(child, `${childPath}[${index}]`, depth));
    }
    return joinFragments(parts, key === 'and' ? ' and ' : ' or ');
  }

  private condition(node: Record<string, unknown>, path: string): SqlFragment {
    this.conditions += 1;
    if (this.conditions > MAX_FILTER_CONDITIONS) {
      return this.issue('too_many_conditions', path, `exceeds the limit of ${MAX_FILTER_CONDITIONS} conditions per filter`);
    }
    const before = this.issues.length;
    for (const extra of Object.keys(node).filter((k) => !CONDITION_KEYS.includes(k))) {
      this.issue('unknown_field', `${path}.${extra}`, 'is not allowed in a condition (a condition has field, operator and value)');
    }
    if (!('field' in node)) this.issue('required', `${path}.field`, 'is required');
    if (!('operator' in node)) this.issue('required', `${path}.operator`, 'is required');
    if (this.issues.length > before) return MATCH_NONE;

    const resolved = resolveOperand(node.field, this.fields);
    if (!resolved.ok) return this.issue(resolved.code, `${path}.field`, resolved.message);
    const operand = resolved.operand;
    if (operand.kind === 'formula') {
      return this.issue('not_filterable', `${path}.field`, `is formula field ${JSON.stringify(operand.label)}, which cannot be used in filters yet`);
    }
    const operator = node.operator;
    const allowed = OPERATORS_BY_TYPE[operand.kind] as readonly string[];
    if (!isFilterOperator(operator) || !allowed.includes(operator)) {
      const what = operand.field ? `${operand.kind.replace(':', ' ')} field ${JSON.stringify(operand.label)}` : operand.label;
      const shown = typeof operator === 'string' ? JSON.stringify(operator) : 'this operator';
      return this.issue('invalid_operator', `${path}.operator`, `${shown} is not an operator for ${what}; use one of ${allowed.join(', ')}`);
    }
    const value = node.value;
    if (!VALUELESS_OPERATORS.has(operator)) {
      if (value === undefined) return this.issue('required', `${path}.value`, `is required by operator ${operator}`);
      if (value === null) return this.issue('invalid_value', `${path}.value`, 'must not be null; use the isEmpty operator to match empty cells');
    }
    const result = compileCondition(operand, operator, value, {
      alias: this.alias,
      subqueryAlias: () => `${this.alias}_l${this.subqueries++}`,
    });
    if (!result.ok) return this.issue(result.issue.code, `${path}.${result.issue.path}`, result.issue.message);
    return result.sql;
  }
}

/** True for an absent filter: undefined, null or `{}`. */
export function isEmptyFilter(filter: unknown): boolean {
  return filter === undefined || filter === null || (isPlainObject(filter) && Object.keys(filter).length === 0);
}

/**
 * Compiles a filter (see QueryFilterSchema) over the fields of one table into a condition on `options.alias`.
 * An absent filter compiles to `true`. Throws BadRequestError listing every problem, with paths such as
 * `filter.and[1].or[0].operator`.
 */
export function compileFilter(filter: unknown, fields: readonly FieldModel[], options: CompileFilterOptions): SqlFragment {
  if (isEmptyFilter(filter)) return { ...MATCH_ALL, bindings: [] };
  const root = options.path ?? 'filter';
  const compiler = new FilterCompiler(fields, options.alias);
  const sql = compiler.node(filter, root, 0);
  const issues = compiler.issues;
  if (issues.length > 0) {
    const first = issues[0]!;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw new BadRequestError(`Invalid ${root}: ${first.path} ${first.message}${more}`, issues);
  }
  return sql;
}
