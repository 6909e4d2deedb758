/**
 * SQL building blocks of compiled formulas: typed expressions, the value of a field as a formula sees it, and
 * conversions between formula types. Identifiers are `??` bindings and values `?` bindings, as everywhere in the
 * query layer; type names and units in the SQL text are constants of this module.
 */
import { DATA_SCHEMA, SYSTEM_COLUMNS, type FieldModel } from '../types.js';
import { qualified } from '../query/fragment.js';
import { isSystemField } from '../query/operand.js';
import type { FormulaType } from './formula-nodes.js';

/** A compiled node: SQL text, its bindings in order, and its value type. */
export interface Typed {
  sql: string;
  bindings: unknown[];
  type: FormulaType;
}

export const typed = (type: FormulaType, sql: string, ...bindings: unknown[]): Typed => ({ sql, bindings, type });

/** PostgreSQL type of each formula type, for typed nulls and casts. */
export const SQL_TYPE: Record<FormulaType, string> = {
  number: 'numeric',
  string: 'text',
  boolean: 'boolean',
  date: 'timestamptz',
  dateOnly: 'date',
};

/** SQL of a percent column's value (its stored number × 0.01). */
export const PERCENT_OF_COLUMN = '(?? * 0.01)';

export const nullOf = (type: FormulaType): Typed => typed(type, `null::${SQL_TYPE[type]}`);

/** `"data"."rows_<id>"` as a `??` binding. */
export const dataTable = (name: string): string => qualified(DATA_SCHEMA, name);

/** Text form of a value: numbers without trailing zeros, instants as ISO 8601 in UTC. */
export function asText(value: Typed): Typed {
  switch (value.type) {
    case 'string':
      return value;
    case 'number':
      return typed('string', `trim_scale(${value.sql})::text`, ...value.bindings);
    case 'date':
      return typed('string', `to_char((${value.sql}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`, ...value.bindings);
    case 'dateOnly':
      return typed('string', `to_char(${value.sql}, 'YYYY-MM-DD')`, ...value.bindings);
    case 'boolean':
      return typed('string', `(${value.sql})::text`, ...value.bindings);
  }
}

/** An instant for date arithmetic: calendar dates are taken at midnight UTC. */
export function asInstant(value: Typed): Typed {
  return value.type === 'dateOnly' ? typed('date', `((${value.sql})::timestamp at time zone 'UTC')`, ...value.bindings) : value;
}

/** Text to number without ever failing: text that is not a plain decimal number becomes null. */
export function textToNumber(value: Typed): Typed {
  return typed(
    'number',
    `(case when btrim(${value.sql}) ~ '^[+-]{0,1}([0-9]+[.]{0,1}[0-9]*|[.][0-9]+)$' then btrim(${value.sql})::numeric end)`,
    ...value.bindings,
    ...value.bindings,
  );
}

/** Why a field cannot be read by a formula, or null when it can. */
export function unreadableReason(field: FieldModel): { code: string; message: string } | null {
  switch (field.type) {
    case 'formula':
      return { code: 'formula_reference', message: `is formula field "${field.name}": a formula may not reference another formula column` };
    case 'relation':
      return {
        code: 'relation_as_field',
        message: `is relation field "${field.name}": a relation column may not be used as a standalone field; use "[${field.name}].[Field]" or an aggregate`,
      };
    case 'entityRelation':
    case 'file':
      return { code: 'unsupported_field', message: `is ${field.type} field "${field.name}", which formulas cannot read` };
    default:
      return null;
  }
}

/** The value of a field of the row aliased `alias`; percent numbers are divided by 100. Null when unreadable. */
export function fieldValue(field: FieldModel, alias: string): Typed | null {
  if (unreadableReason(field) || !field.column) return null;
  const col = qualified(alias, field.column);
  switch (field.type) {
    case 'number':
      // × 0.01 rather than ÷ 100: the same exact value, and numeric multiplication is much cheaper than division.
      return field.metadata.format === 'percent' ? typed('number', PERCENT_OF_COLUMN, col) : typed('number', '??', col);
    case 'string':
    case 'avatar':
      return typed('string', '??', col);
    case 'boolean':
      return typed('boolean', '??', col);
    case 'date':
      return typed('date', '??', col);
    case 'dateOnly':
      return typed('dateOnly', '??', col);
    case 'select': {
      // Option names by id, so an option renamed reads with its new name at once.
      if (!field.options.length) return nullOf('string');
      const cases = field.options.map(() => 'when ?::integer then ?::text').join(' ');
      const pairs = field.options.flatMap((o) => [o.id, o.name]);
      if (field.metadata.mode !== 'multiSelect') return typed('string', `(case ?? ${cases} end)`, col, ...pairs);
      return typed('string', `array_to_string(array(select case x ${cases} end from unnest(??) as x), ', ')`, ...pairs, col);
    }
    default:
      return null;
  }
}

/** The value of a system field (`id`, `recordTypeId`, `createdAt`, `updatedAt`) of the row aliased `alias`. */
export function systemValue(name: string, alias: string): Typed | null {
  if (!isSystemField(name)) return null;
  const col = qualified(alias, SYSTEM_COLUMNS[name]);
  if (name === 'id') return typed('string', '(??)::text', col);
  if (name === 'recordTypeId') return typed('number', '(??)::numeric', col);
  return typed('date', '??', col);
}
