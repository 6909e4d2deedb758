/**
 * The SQL of one filter condition, per operand kind. The operator is already known to be valid for the
 * operand (see OPERATORS_BY_TYPE); the value is parsed here. Cast types in the SQL text are constants of this
 * file; every value is a `?` binding.
 */
import { DATA_SCHEMA, type FieldModel } from '../types.js';
import { fragment, MATCH_ALL, MATCH_NONE, qualified, type SqlFragment } from './fragment.js';
import type { Operand } from './operand.js';
import type { FilterOperator } from './operators.js';
import {
  fail,
  ok,
  parseBoolean,
  parseDateOnly,
  parseInstant,
  parseInt4,
  parseList,
  parseNumeric,
  parseRange,
  parseRowId,
  parseText,
  type InstantBound,
  type Parsed,
} from './values.js';

/** A problem with the condition; `path` is relative to the condition (`value`, `value[2]`). */
export interface ConditionIssue {
  code: string;
  path: string;
  message: string;
}

export type ConditionResult = { ok: true; sql: SqlFragment } | { ok: false; issue: ConditionIssue };

export interface ConditionContext {
  /** Alias of the row table in the query. */
  alias: string;
  /** A fresh alias for a table in a subquery. */
  subqueryAlias(): string;
}

type Parser<T> = (value: unknown) => Parsed<T>;

function done(sql: SqlFragment): ConditionResult {
  return { ok: true, sql };
}

function invalid(parsed: { message: string; at?: string; code?: string }): ConditionResult {
  return { ok: false, issue: { code: parsed.code ?? 'invalid_value', path: `value${parsed.at ?? ''}`, message: parsed.message } };
}

/** Runs `build` on the parsed value, or reports why the value is invalid. */
function withValue<T>(parsed: Parsed<T>, build: (value: T) => SqlFragment): ConditionResult {
  return parsed.ok ? done(build(parsed.value)) : invalid(parsed);
}

function unexpected(operator: FilterOperator, kind: string): never {
  throw new Error(`operator ${operator} reached the ${kind} compiler`);
}

const COMPARISON: Partial<Record<FilterOperator, string>> = {
  eq: '=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  before: '<',
  after: '>',
  onOrBefore: '<=',
  onOrAfter: '>=',
};

/** `col = any(items)`; nothing matches an empty list. */
function anyOf(col: string, items: unknown[], type: string): SqlFragment {
  return items.length === 0 ? MATCH_NONE : fragment(`?? = any(?::${type}[])`, col, items);
}

/** Not one of `items`; empty cells match, and everything matches an empty list. */
function noneOf(col: string, items: unknown[], type: string): SqlFragment {
  return items.length === 0 ? MATCH_ALL : fragment(`(?? is null or not (?? = any(?::${type}[])))`, col, col, items);
}

/** Operators on a scalar column of SQL type `type`: comparisons, ranges, lists, emptiness. */
function scalar<T>(col: string, operator: FilterOperator, value: unknown, parse: Parser<T>, type: string): ConditionResult {
  switch (operator) {
    case 'isEmpty':
      return done(fragment('?? is null', col));
    case 'isNotEmpty':
      return done(fragment('?? is not null', col));
    case 'in':
      return withValue(parseList(value, parse), (items) => anyOf(col, items, type));
    case 'notIn':
      return withValue(parseList(value, parse), (items) => noneOf(col, items, type));
    case 'between':
      return withValue(parseRange(value, parse), ([min, max]) => fragment(`?? between ?::${type} and ?::${type}`, col, min, max));
    case 'neq':
      return withValue(parse(value), (v) => fragment(`?? is distinct from ?::${type}`, col, v));
    default: {
      const comparison = COMPARISON[operator] ?? unexpected(operator, type);
      return withValue(parse(value), (v) => fragment(`?? ${comparison} ?::${type}`, col, v));
    }
  }
}

/** Escapes `\`, `%` and `_` for a LIKE pattern (backslash is PostgreSQL's default escape character). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function text(col: string, operator: FilterOperator, value: unknown): ConditionResult {
  const like = (pattern: (s: string) => string, negated = false) =>
    withValue(parseText(value), (s) =>
      negated ? fragment('(?? is null or ?? not ilike ?)', col, col, pattern(escapeLike(s))) : fragment('?? ilike ?', col, pattern(escapeLike(s))),
    );
  switch (operator) {
    case 'isEmpty':
      return done(fragment("(?? is null or ?? = '')", col, col));
    case 'isNotEmpty':
      return done(fragment("(?? is not null and ?? <> '')", col, col));
    case 'contains':
      return like((s) => `%${s}%`);
    case 'notContains':
      return like((s) => `%${s}%`, true);
    case 'startsWith':
      return like((s) => `${s}%`);
    case 'endsWith':
      return like((s) => `%${s}`);
    default:
      return scalar(col, operator, value, parseText, 'text');
  }
}

function bool(col: string, operator: FilterOperator, value: unknown): ConditionResult {
  if (operator !== 'eq') return scalar(col, operator, value, parseBoolean, 'boolean');
  // An unticked checkbox is false whether it was ever written or not.
  return withValue(parseBoolean(value), (b) => fragment(b ? '?? is true' : '?? is not true', col));
}

/** Date-time operators; a bare date is the whole day (see parseInstant). */
function instant(col: string, operator: FilterOperator, value: unknown, timeZone: unknown): ConditionResult {
  const parse = (v: unknown) => parseInstant(v, timeZone);
  const upTo = (b: InstantBound) => fragment(b.wholeDay ? '?? < ?::timestamptz' : '?? <= ?::timestamptz', col, b.to);
  switch (operator) {
    case 'isEmpty':
    case 'isNotEmpty':
      return scalar(col, operator, value, parse, 'timestamptz');
    case 'eq':
      return withValue(parse(value), (b) =>
        b.wholeDay
          ? fragment('(?? >= ?::timestamptz and ?? < ?::timestamptz)', col, b.from, col, b.to)
          : fragment('?? = ?::timestamptz', col, b.from),
      );
    case 'before':
      return withValue(parse(value), (b) => fragment('?? < ?::timestamptz', col, b.from));
    case 'onOrAfter':
      return withValue(parse(value), (b) => fragment('?? >= ?::timestamptz', col, b.from));
    case 'after':
      return withValue(parse(value), (b) => fragment(b.wholeDay ? '?? >= ?::timestamptz' : '?? > ?::timestamptz', col, b.to));
    case 'onOrBefore':
      return withValue(parse(value), upTo);
    case 'between':
      return withValue(parseRange(value, parse), ([min, max]) => {
        const upper = upTo(max);
        return fragment(`(?? >= ?::timestamptz and ${upper.sql})`, col, min.from, ...upper.bindings);
      });
    default:
      return unexpected(operator, 'date');
  }
}

/** Operators on an array column (multi select, multi entity relation). */
function array<T>(col: string, operator: FilterOperator, value: unknown, parse: Parser<T>, type: string): ConditionResult {
  switch (operator) {
    case 'isEmpty':
      return done(fragment('(?? is null or cardinality(??) = 0)', col, col));
    case 'isNotEmpty':
      return done(fragment('cardinality(??) > 0', col));
    case 'hasAny':
      return withValue(parseList(value, parse), (items) => (items.length ? fragment(`?? && ?::${type}[]`, col, items) : MATCH_NONE));
    case 'hasAll':
      return withValue(parseList(value, parse), (items) => (items.length ? fragment(`?? @> ?::${type}[]`, col, items) : MATCH_ALL));
    case 'hasNone':
      return withValue(parseList(value, parse), (items) =>
        items.length ? fragment(`(?? is null or not (?? && ?::${type}[]))`, col, col, items) : MATCH_ALL,
      );
    default:
      return unexpected(operator, type);
  }
}

/** Operators on a multi relation, through its link table `(source_id, target_id)`. */
function links(field: FieldModel, operator: FilterOperator, value: unknown, ctx: ConditionContext): ConditionResult {
  if (!field.linkTable) throw new Error(`Field ${JSON.stringify(field.name)} has no link table`);
  const table = qualified(DATA_SCHEMA, field.linkTable);
  const link = ctx.subqueryAlias();
  const source = qualified(link, 'source_id');
  const target = qualified(link, 'target_id');
  const rowId = qualified(ctx.alias, 'id');
  const linked = (extra: SqlFragment | null): SqlFragment =>
    fragment(`select 1 from ?? as ?? where ?? = ??${extra ? ` and ${extra.sql}` : ''}`, table, link, source, rowId, ...(extra?.bindings ?? []));
  const exists = (extra: SqlFragment | null, negated = false): SqlFragment => {
    const sub = linked(extra);
    return fragment(`${negated ? 'not exists' : 'exists'} (${sub.sql})`, ...sub.bindings);
  };
  const among = (ids: string[]) => fragment('?? = any(?::bpchar[])', target, ids);
  switch (operator) {
    case 'isEmpty':
      return done(exists(null, true));
    case 'isNotEmpty':
      return done(exists(null));
    case 'hasAny':
      return withValue(parseList(value, parseRowId), (ids) => (ids.length ? exists(among(ids)) : MATCH_NONE));
    case 'hasNone':
      return withValue(parseList(value, parseRowId), (ids) => (ids.length ? exists(among(ids), true) : MATCH_ALL));
    case 'hasAll':
      return withValue(parseList(value, parseRowId), (ids) =>
        ids.length
          ? fragment(
              '(select count(distinct ??) from ?? as ?? where ?? = ?? and ?? = any(?::bpchar[])) = ?',
              target,
              table,
              link,
              source,
              rowId,
              target,
              ids,
              ids.length,
            )
          : MATCH_ALL,
      );
    default:
      return unexpected(operator, 'relation');
  }
}

/** Option id of a select field from an option name (exact, then case-insensitive) or an option id. */
function optionOf(field: FieldModel): Parser<number> {
  return (value) => {
    if (typeof value === 'number') {
      const option = field.options.find((o) => o.id === value);
      return option ? ok(option.id) : fail(`is not an option id of field ${JSON.stringify(field.name)}`, undefined, 'not_found');
    }
    if (typeof value !== 'string') return fail('must be an option name');
    const lower = value.toLowerCase();
    const option = field.options.find((o) => o.name === value) ?? field.options.find((o) => o.name.toLowerCase() === lower);
    if (option) return ok(option.id);
    const known = field.options.slice(0, 20).map((o) => JSON.stringify(o.name));
    const list = known.length ? `; its options are ${known.join(', ')}${field.options.length > 20 ? ', …' : ''}` : '; it has no options';
    return fail(`names no option of field ${JSON.stringify(field.name)}: ${JSON.stringify(value)}${list}`, undefined, 'not_found');
  };
}

/** Conversation ids: non-empty strings. */
function parseEntityKey(value: unknown): Parsed<string> {
  const parsed = parseText(value);
  return parsed.ok && parsed.value === '' ? fail('must not be empty') : parsed;
}

function file(col: string, operator: FilterOperator): ConditionResult {
  const empty = "('null'::jsonb, '[]'::jsonb, '{}'::jsonb)";
  if (operator === 'isEmpty') return done(fragment(`(?? is null or ?? in ${empty})`, col, col));
  if (operator === 'isNotEmpty') return done(fragment(`(?? is not null and ?? not in ${empty})`, col, col));
  return unexpected(operator, 'file');
}

/** The SQL of `operand operator value`. */
export function compileCondition(operand: Operand, operator: FilterOperator, value: unknown, ctx: ConditionContext): ConditionResult {
  const field = operand.field;
  const col = () => {
    if (!operand.column) throw new Error(`Field ${JSON.stringify(operand.label)} has no column`);
    return qualified(ctx.alias, operand.column);
  };
  switch (operand.kind) {
    case 'string':
    case 'avatar':
      return text(col(), operator, value);
    case 'number':
      return scalar(col(), operator, value, parseNumeric, 'numeric');
    case 'boolean':
      return bool(col(), operator, value);
    case 'date':
      return instant(col(), operator, value, field?.metadata.timezone);
    case 'createdAt':
    case 'updatedAt':
      return instant(col(), operator, value, 'UTC');
    case 'dateOnly':
      return scalar(col(), operator, value, parseDateOnly, 'date');
    case 'select:single':
      return scalar(col(), operator, value, optionOf(field!), 'integer');
    case 'select:multi':
      return array(col(), operator, value, optionOf(field!), 'integer');
    case 'relation:single':
    case 'id':
      return scalar(col(), operator, value, parseRowId, 'bpchar');
    case 'relation:multi':
      return links(field!, operator, value, ctx);
    case 'entityRelation:single':
    case 'entityRelation:multi': {
      const users = field!.metadata.entityModel !== 'Conversation';
      const parse: Parser<number | string> = users ? parseInt4 : parseEntityKey;
      const type = users ? 'integer' : 'text';
      return operand.kind === 'entityRelation:single' ? scalar(col(), operator, value, parse, type) : array(col(), operator, value, parse, type);
    }
    case 'recordTypeId':
      return scalar(col(), operator, value, parseInt4, 'integer');
    case 'file':
      return file(col(), operator);
    case 'formula':
      throw new Error('formula fields are refused before compiling a condition');
  }
}
