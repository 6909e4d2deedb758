/**
 * Formula expressions (SPEC.md "Formula expression nodes"): their node shapes and the structural checks that need
 * no other field — node keys, argument counts and the depth limit. Pure; no I/O.
 *
 * Depth as SPEC.md counts it: the root counts 1, every field and constant leaf counts 1, and each step into
 * `arguments`, `then` / `else` or padLeft `value` adds one; query filters inside a node do not count.
 */
import type { Issue } from '../../../lib/errors.js';
import { isPlainObject } from '../field-types/common.js';

/** Most levels of a formula expression (SPEC.md, Limits). */
export const MAX_FORMULA_DEPTH = 5;
/** Most arguments of one operator node; more says the formula is being generated, not written. */
export const MAX_ARGUMENTS = 50;
/** Longest result of padLeft. */
export const MAX_PAD_LENGTH = 1000;

/** The value types a formula node can have; also the types formula columns filter, sort and aggregate as. */
export type FormulaType = 'number' | 'string' | 'boolean' | 'date' | 'dateOnly';

export const NODE_TYPES = ['constant', 'field', 'operator', 'aggregate', 'padLeft', 'ifElse', 'timeOperator'] as const;
export const OPERATORS = ['add', 'subtract', 'multiply', 'divide', 'concat'] as const;
export const AGGREGATE_OPERATIONS = ['count', 'sum', 'avg', 'min', 'max', 'sumProduct'] as const;
export const TIME_OPERATORS = ['add', 'subtract', 'diff'] as const;
export const TIME_UNITS = ['second', 'minute', 'hour', 'day', 'month', 'year'] as const;

export type FormulaNode = Record<string, unknown> & { type: (typeof NODE_TYPES)[number] };

const KEYS: Record<(typeof NODE_TYPES)[number], { required: string[]; optional: string[] }> = {
  constant: { required: ['value'], optional: [] },
  field: { required: ['field'], optional: ['fallbackValue'] },
  operator: { required: ['operator', 'arguments'], optional: [] },
  aggregate: { required: ['operation', 'field'], optional: ['relation', 'isBackRelation', 'backRelationColumnId', 'arguments', 'filter'] },
  padLeft: { required: ['value', 'length', 'char'], optional: [] },
  ifElse: { required: ['filter', 'then', 'else'], optional: [] },
  timeOperator: { required: ['operator', 'arguments', 'unit'], optional: [] },
};

/** The child nodes that count toward the depth, with their paths. */
export function childrenOf(node: Record<string, unknown>, path: string): { node: unknown; path: string }[] {
  switch (node.type) {
    case 'operator':
    case 'timeOperator':
    case 'aggregate':
      return Array.isArray(node.arguments) ? node.arguments.map((child, i) => ({ node: child, path: `${path}.arguments[${i}]` })) : [];
    case 'ifElse':
      return [
        { node: node.then, path: `${path}.then` },
        { node: node.else, path: `${path}.else` },
      ];
    case 'padLeft':
      return [{ node: node.value, path: `${path}.value` }];
    default:
      return [];
  }
}

const oneOf = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');

function checkEnumKey(node: Record<string, unknown>, key: string, allowed: readonly string[], path: string, issues: Issue[]): void {
  if (node[key] !== undefined && !(typeof node[key] === 'string' && allowed.includes(node[key]))) {
    issues.push({ code: 'invalid', path: `${path}.${key}`, message: `must be one of ${oneOf(allowed)}` });
  }
}

/** Keys and values of one node, without looking at its children or at fields. */
function checkNode(node: unknown, path: string, issues: Issue[]): node is FormulaNode {
  if (!isPlainObject(node)) {
    issues.push({ code: 'invalid', path, message: 'must be a formula node: an object with a "type"' });
    return false;
  }
  const type = node.type;
  if (typeof type !== 'string' || !(NODE_TYPES as readonly string[]).includes(type)) {
    issues.push({ code: 'invalid', path: `${path}.type`, message: `must be one of ${oneOf(NODE_TYPES)}` });
    return false;
  }
  const before = issues.length;
  const keys = KEYS[type as FormulaNode['type']];
  for (const key of Object.keys(node)) {
    if (key !== 'type' && !keys.required.includes(key) && !keys.optional.includes(key)) {
      issues.push({
        code: 'unknown_field',
        path: `${path}.${key}`,
        message: `is not a key of ${type} nodes (they have ${[...keys.required, ...keys.optional].join(', ')})`,
      });
    }
  }
  for (const key of keys.required) {
    if (node[key] === undefined || node[key] === null)
      issues.push({ code: 'required', path: `${path}.${key}`, message: `is required in ${type} nodes` });
  }
  if (issues.length > before) return false;
  checkNodeValues(node as FormulaNode, path, issues);
  return issues.length === before;
}

function checkNodeValues(node: FormulaNode, path: string, issues: Issue[]): void {
  const scalar = (key: string) => {
    const value = node[key];
    if (value !== undefined && !(typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))) {
      issues.push({ code: 'invalid', path: `${path}.${key}`, message: 'must be a string or a finite number' });
    }
  };
  const args = (min: number, max: number) => {
    const list = node.arguments;
    if (list === undefined && min === 0) return;
    if (!Array.isArray(list) || list.length < min || list.length > max) {
      const count = min === max ? `exactly ${min}` : `${min} to ${max}`;
      issues.push({ code: 'invalid', path: `${path}.arguments`, message: `must be an array of ${count} nodes` });
    }
  };
  switch (node.type) {
    case 'constant':
      scalar('value');
      break;
    case 'field':
      if (typeof node.field !== 'string' || !parseFieldRef(node.field)) {
        issues.push({ code: 'invalid', path: `${path}.field`, message: 'must be "[Field Name]" or "[Relation Name].[Field Name]"' });
      }
      scalar('fallbackValue');
      break;
    case 'operator':
      checkEnumKey(node, 'operator', OPERATORS, path, issues);
      args(node.operator === 'concat' ? 1 : 2, MAX_ARGUMENTS);
      break;
    case 'aggregate':
      checkEnumKey(node, 'operation', AGGREGATE_OPERATIONS, path, issues);
      if (typeof node.field !== 'string' || node.field.trim() === '')
        issues.push({ code: 'invalid', path: `${path}.field`, message: 'must be a field name' });
      if (node.relation !== undefined && typeof node.relation !== 'string')
        issues.push({ code: 'invalid', path: `${path}.relation`, message: 'must be a relation field name' });
      if (node.isBackRelation !== undefined && typeof node.isBackRelation !== 'boolean')
        issues.push({ code: 'invalid', path: `${path}.isBackRelation`, message: 'must be a boolean' });
      if (
        node.backRelationColumnId !== undefined &&
        !(Number.isSafeInteger(node.backRelationColumnId) && (node.backRelationColumnId as number) > 0)
      ) {
        issues.push({ code: 'invalid', path: `${path}.backRelationColumnId`, message: 'must be a field id' });
      }
      if (node.arguments !== undefined && node.operation !== 'sumProduct') {
        issues.push({ code: 'invalid', path: `${path}.arguments`, message: 'weights are taken by sumProduct only' });
      } else args(0, MAX_ARGUMENTS);
      if (node.filter !== undefined && !isPlainObject(node.filter))
        issues.push({ code: 'invalid', path: `${path}.filter`, message: 'must be a query filter' });
      if (!node.isBackRelation && node.relation === undefined) {
        issues.push({ code: 'required', path: `${path}.relation`, message: 'is required for aggregates over a direct relation' });
      }
      break;
    case 'padLeft':
      if (!Number.isSafeInteger(node.length) || (node.length as number) < 1 || (node.length as number) > MAX_PAD_LENGTH) {
        issues.push({ code: 'invalid', path: `${path}.length`, message: `must be an integer from 1 to ${MAX_PAD_LENGTH}` });
      }
      if (typeof node.char !== 'string' || Array.from(node.char).length !== 1 || node.char === '\u0000') {
        issues.push({ code: 'invalid', path: `${path}.char`, message: 'must be a single character' });
      }
      break;
    case 'ifElse':
      if (!isPlainObject(node.filter)) issues.push({ code: 'invalid', path: `${path}.filter`, message: 'must be a query filter' });
      break;
    case 'timeOperator':
      checkEnumKey(node, 'operator', TIME_OPERATORS, path, issues);
      checkEnumKey(node, 'unit', TIME_UNITS, path, issues);
      args(2, 2);
      break;
  }
}

/**
 * Checks the shape of a whole expression and its depth, breadth-first, so a hostile expression thousands of
 * levels deep costs nothing: the walk stops at the first node beyond the limit. Returns every issue found.
 */
export function checkExpressionShape(expression: unknown, path: string): Issue[] {
  const issues: Issue[] = [];
  let level: { node: unknown; path: string }[] = [{ node: expression, path }];
  for (let depth = 1; level.length > 0; depth++) {
    if (depth > MAX_FORMULA_DEPTH) {
      const first = level[0]!;
      issues.push({ code: 'too_deep', path: first.path, message: `is at depth ${depth}; formulas may nest at most ${MAX_FORMULA_DEPTH} levels` });
      break;
    }
    const next: { node: unknown; path: string }[] = [];
    for (const item of level) {
      if (checkNode(item.node, item.path, issues)) next.push(...childrenOf(item.node as FormulaNode, item.path));
    }
    level = next;
  }
  return issues;
}

/** `[Field]` → ['Field']; `[Relation].[Field]` → ['Relation', 'Field']; a bare name is taken as a field name. */
export function parseFieldRef(ref: string): string[] | null {
  const text = ref.trim();
  const bracketed = /^\[([^\]]+)\](?:\s*\.\s*\[([^\]]+)\])?$/.exec(text);
  if (bracketed) return bracketed[2] !== undefined ? [bracketed[1]!.trim(), bracketed[2].trim()] : [bracketed[1]!.trim()];
  if (text === '' || text.includes('[') || text.includes(']')) return null;
  return [text];
}
