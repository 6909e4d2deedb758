/**
 * The filter operators and which of them each kind of operand accepts. The table is the single source of
 * truth: the compiler checks against it and the published JSON Schema documents it.
 */

export const FILTER_OPERATORS = [
  'eq',
  'neq',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'before',
  'after',
  'onOrBefore',
  'onOrAfter',
  'in',
  'notIn',
  'hasAny',
  'hasAll',
  'hasNone',
  'isEmpty',
  'isNotEmpty',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

const TEXT = ['eq', 'neq', 'contains', 'notContains', 'startsWith', 'endsWith', 'in', 'notIn', 'isEmpty', 'isNotEmpty'] as const;
const NUMBER = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'between', 'in', 'notIn', 'isEmpty', 'isNotEmpty'] as const;
const DATE = ['eq', 'before', 'after', 'onOrBefore', 'onOrAfter', 'between', 'isEmpty', 'isNotEmpty'] as const;
const SINGLE = ['eq', 'neq', 'in', 'notIn', 'isEmpty', 'isNotEmpty'] as const;
const MULTI = ['hasAny', 'hasAll', 'hasNone', 'isEmpty', 'isNotEmpty'] as const;

/**
 * Operators per operand kind. Kinds are the field types, split by `metadata.mode` where single and multi
 * values behave differently, plus the system fields.
 */
export const OPERATORS_BY_TYPE = {
  string: TEXT,
  avatar: TEXT,
  number: NUMBER,
  boolean: ['eq', 'isEmpty', 'isNotEmpty'],
  date: DATE,
  dateOnly: DATE,
  'select:single': SINGLE,
  'select:multi': MULTI,
  'relation:single': SINGLE,
  'relation:multi': MULTI,
  'entityRelation:single': SINGLE,
  'entityRelation:multi': MULTI,
  file: ['isEmpty', 'isNotEmpty'],
  formula: [],
  id: ['eq', 'neq', 'in', 'notIn'],
  recordTypeId: SINGLE,
  createdAt: DATE,
  updatedAt: DATE,
} as const satisfies Record<string, readonly FilterOperator[]>;

export type OperandKind = keyof typeof OPERATORS_BY_TYPE;

/** What each operator means and which `value` it takes; published in the schema descriptions. */
export const OPERATOR_DESCRIPTIONS: Record<FilterOperator, string> = {
  eq: 'equals `value` (text: exact, case-sensitive; date: the same instant; select: an option name; boolean `false` also matches empty cells)',
  neq: 'differs from `value`; empty cells match',
  contains: 'text contains `value`, case-insensitive',
  notContains: 'text does not contain `value`, case-insensitive; empty cells match',
  startsWith: 'text starts with `value`, case-insensitive',
  endsWith: 'text ends with `value`, case-insensitive',
  gt: 'greater than `value`',
  gte: 'greater than or equal to `value`',
  lt: 'less than `value`',
  lte: 'less than or equal to `value`',
  between: '`value` is `[min, max]`; both bounds included',
  before: 'strictly before `value`',
  after: 'strictly after `value`',
  onOrBefore: 'before or equal to `value`',
  onOrAfter: 'after or equal to `value`',
  in: '`value` is an array; equals one of its items (an empty array matches nothing)',
  notIn: '`value` is an array; equals none of its items; empty cells match',
  hasAny: '`value` is an array; the cell holds at least one of its items',
  hasAll: '`value` is an array; the cell holds every one of its items',
  hasNone: '`value` is an array; the cell holds none of its items; empty cells match',
  isEmpty: 'the cell is empty (null; for text also `""`; for multi values no item); `value` is ignored',
  isNotEmpty: 'the cell is not empty; `value` is ignored',
};

/** Operators that take no `value`. */
export const VALUELESS_OPERATORS: ReadonlySet<FilterOperator> = new Set(['isEmpty', 'isNotEmpty']);

export function isFilterOperator(value: unknown): value is FilterOperator {
  return typeof value === 'string' && (FILTER_OPERATORS as readonly string[]).includes(value);
}

export function operatorsOf(kind: OperandKind): readonly FilterOperator[] {
  return OPERATORS_BY_TYPE[kind];
}
