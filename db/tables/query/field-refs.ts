/**
 * Field references inside saved filters and sorts. Views store them as field ids, so renaming a field keeps
 * every view working, and deleting a field removes the conditions and sort entries that used it.
 */
import { resolveOperand } from './operand.js';
import type { FieldModel } from '../types.js';

type Node = Record<string, unknown>;

function mapConditions(filter: unknown, fn: (condition: Node) => Node | null): unknown {
  if (!filter || typeof filter !== 'object' || Array.isArray(filter)) return filter;
  const node = filter as Node;
  for (const key of ['and', 'or'] as const) {
    if (Array.isArray(node[key])) {
      const items = (node[key] as unknown[]).map((item) => mapConditions(item, fn)).filter((item) => item !== null);
      return items.length ? { [key]: items } : null;
    }
  }
  return 'field' in node ? fn(node) : node;
}

/** The filter with every field name replaced by the field's id (system fields and unknown refs unchanged). */
export function filterWithIds(filter: unknown, fields: readonly FieldModel[]): unknown {
  return mapConditions(filter, (c) => {
    const resolved = resolveOperand(c.field, fields);
    return resolved.ok && resolved.operand.field ? { ...c, field: resolved.operand.field.id } : c;
  });
}

export function sortWithIds(sort: unknown[], fields: readonly FieldModel[]): unknown[] {
  return sort.map((entry) => {
    const e = entry as Node;
    const resolved = resolveOperand(e.field, fields);
    return resolved.ok && resolved.operand.field ? { ...e, field: resolved.operand.field.id } : e;
  });
}

/** The filter without the conditions on the field (null when nothing is left). */
export function filterWithout(filter: unknown, fieldId: number): unknown {
  if (filter === null || filter === undefined) return filter ?? null;
  return mapConditions(filter, (c) => (c.field === fieldId ? null : c));
}

export function sortWithout(sort: unknown[], fieldId: number): unknown[] {
  return sort.filter((entry) => (entry as Node).field !== fieldId);
}
