/**
 * Sort of row lists, compiled to ordered keys. Every key sorts NULLS LAST in both directions, and the last key
 * is always the row id, so the order is total and keyset pagination (cursor.ts) is exact.
 *
 *   compileSort([{ field: 'Status', direction: 'desc' }], fields, 'r')
 *   → [{ sql: 'array_position(?::integer[], ??)', bindings: [[3, 1, 2], 'r.f_4'], direction: 'desc', … },
 *      { sql: '??', bindings: ['r.id'], direction: 'asc', … }]
 */
import { BadRequestError, type Issue } from '../../../lib/errors.js';
import type { FieldModel } from '../types.js';
import { fragment, qualified, type SqlFragment } from './fragment.js';
import { resolveOperand, type Operand } from './operand.js';

export type SortDirection = 'asc' | 'desc';

/** SQL type of a sort key's expression; the cursor casts its values back to it. */
export type SortKeyType = 'text' | 'bpchar' | 'numeric' | 'integer' | 'boolean' | 'timestamptz' | 'date';

export interface SortKey extends SqlFragment {
  /** Expression to order by (`??` identifiers and `?` values in `bindings`). */
  sql: string;
  bindings: unknown[];
  direction: SortDirection;
  /** Empty cells come last in both directions. */
  nulls: 'last';
  type: SortKeyType;
  /** The key is never null (the row id), so a keyset condition on it needs no `or … is null` and can use its index. */
  notNull?: true;
}

/** Most entries of a sort. */
export const MAX_SORT_FIELDS = 10;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type KeyResult = { ok: true; sql: SqlFragment; type: SortKeyType } | { ok: false; message: string };

/** The expression a field sorts by. Text sorts case-insensitively; a select by its options' order. */
function sortExpression(operand: Operand, alias: string): KeyResult {
  const col = () => qualified(alias, operand.column ?? '');
  const plain = (type: SortKeyType): KeyResult => ({ ok: true, sql: fragment('??', col()), type });
  switch (operand.kind) {
    case 'string':
    case 'avatar':
      return { ok: true, sql: fragment('lower(??)', col()), type: 'text' };
    case 'number':
      return plain('numeric');
    case 'boolean':
      return plain('boolean');
    case 'date':
    case 'createdAt':
    case 'updatedAt':
      return plain('timestamptz');
    case 'dateOnly':
      return plain('date');
    case 'id':
    case 'relation:single':
      return plain('bpchar');
    case 'recordTypeId':
      return plain('integer');
    case 'entityRelation:single':
      return plain(operand.field?.metadata.entityModel === 'Conversation' ? 'text' : 'integer');
    case 'select:single': {
      const ids = [...operand.field!.options].sort((a, b) => a.order - b.order || a.id - b.id).map((o) => o.id);
      return { ok: true, sql: fragment('array_position(?::integer[], ??)', ids, col()), type: 'integer' };
    }
    case 'select:multi':
    case 'relation:multi':
    case 'entityRelation:multi':
      return { ok: false, message: `is multi-valued field ${JSON.stringify(operand.label)}, which cannot be sorted by` };
    case 'file':
    case 'formula':
      return { ok: false, message: `is ${operand.kind} field ${JSON.stringify(operand.label)}, which cannot be sorted by` };
  }
}

function idKey(alias: string, direction: SortDirection): SortKey {
  return { sql: '??', bindings: [qualified(alias, 'id')], direction, nulls: 'last', type: 'bpchar', notNull: true };
}

/**
 * Compiles a sort (see QuerySortSchema) into ordered keys ending with the row id: ascending, unless the sort
 * itself names `id` (then its direction is kept and later entries are dropped, the order being total already).
 * No sort (undefined, null, []) is `id` ascending: creation order. Throws BadRequestError naming each problem.
 */
export function compileSort(sort: unknown, fields: readonly FieldModel[], alias: string, path = 'sort'): SortKey[] {
  if (sort === undefined || sort === null) return [idKey(alias, 'asc')];
  const issues: Issue[] = [];
  const keys: SortKey[] = [];
  if (!Array.isArray(sort)) {
    issues.push({ code: 'invalid', path, message: 'must be an array of { field, direction }' });
  } else if (sort.length > MAX_SORT_FIELDS) {
    issues.push({ code: 'invalid', path, message: `must have at most ${MAX_SORT_FIELDS} entries` });
  } else {
    const seen = new Set<string>();
    let complete = false;
    for (const [index, entry] of sort.entries()) {
      const at = `${path}[${index}]`;
      if (!isPlainObject(entry)) {
        issues.push({ code: 'invalid', path: at, message: 'must be an object { field, direction }' });
        continue;
      }
      for (const extra of Object.keys(entry).filter((k) => k !== 'field' && k !== 'direction')) {
        issues.push({ code: 'unknown_field', path: `${at}.${extra}`, message: 'is not allowed in a sort entry (it has field and direction)' });
      }
      const direction = entry.direction ?? 'asc';
      if (direction !== 'asc' && direction !== 'desc') {
        issues.push({ code: 'invalid', path: `${at}.direction`, message: 'must be one of "asc", "desc"' });
      }
      if (!('field' in entry)) {
        issues.push({ code: 'required', path: `${at}.field`, message: 'is required' });
        continue;
      }
      const resolved = resolveOperand(entry.field, fields);
      if (!resolved.ok) {
        issues.push({ code: resolved.code, path: `${at}.field`, message: resolved.message });
        continue;
      }
      const identity = resolved.operand.field ? `field:${resolved.operand.field.id}` : resolved.operand.kind;
      if (seen.has(identity)) {
        issues.push({ code: 'invalid', path: `${at}.field`, message: `sorts by ${JSON.stringify(resolved.operand.label)} a second time` });
        continue;
      }
      seen.add(identity);
      const expression = sortExpression(resolved.operand, alias);
      if (!expression.ok) {
        issues.push({ code: 'not_sortable', path: `${at}.field`, message: expression.message });
        continue;
      }
      if (complete || (direction !== 'asc' && direction !== 'desc')) continue;
      keys.push({ ...expression.sql, direction, nulls: 'last', type: expression.type });
      if (resolved.operand.kind === 'id') complete = true;
    }
    if (!complete) keys.push(idKey(alias, 'asc'));
  }
  if (issues.length > 0) {
    const first = issues[0]!;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw new BadRequestError(`Invalid ${path}: ${first.path} ${first.message}${more}`, issues);
  }
  return keys;
}

/** `ORDER BY` list of the keys: `expr asc nulls last, …`. */
export function orderByClause(keys: readonly SortKey[]): SqlFragment {
  return {
    sql: keys.map((key) => `${key.sql} ${key.direction} nulls last`).join(', '),
    bindings: keys.flatMap((key) => key.bindings),
  };
}
