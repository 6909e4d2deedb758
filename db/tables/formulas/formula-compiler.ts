/**
 * Compiles a formula field's metadata (expression, applyIf, output config) to one SQL expression over a row of
 * its table, checking every rule of SPEC.md that needs the fields: references resolve, no other formula column,
 * no relation column standing alone, numeric inputs where arithmetic needs them. Every problem is an issue whose
 * path points at the node (`metadata.expression.arguments[1]`). Pure: the caller loads the scope.
 *
 *   compileFormula({ expression: { type: 'operator', operator: 'multiply', arguments: [
 *     { type: 'field', field: '[Amount]' }, { type: 'constant', value: 2 }] } }, scope, 't')
 *   → { ok: true, formula: { sql: '(?? * ?::numeric)', bindings: ['t.f_4', 2], type: 'number', references: {4} } }
 */
import { BadRequestError, type Issue } from '../../../lib/errors.js';
import { compileFilter } from '../query/filter.js';
import { resolveOperand } from '../query/operand.js';
import { parseDateOnly, parseInstant } from '../query/values.js';
import type { FieldModel } from '../types.js';
import { compileAggregate, compileLookup } from './formula-relations.js';
import type { FormulaContext, FormulaScope, RowContext } from './formula-scope.js';
import { shapeOutput } from './formula-output.js';
import { parseFieldRef, type FormulaNode } from './formula-nodes.js';
import { asInstant, asText, fieldValue, PERCENT_OF_COLUMN, systemValue, typed, unreadableReason, type Typed } from './formula-sql.js';

/** A compiled formula: its SQL over the row alias it was compiled for, its type and the field ids it reads. */
export interface CompiledFormula extends Typed {
  references: Set<number>;
}

export type CompileResult = { ok: true; formula: CompiledFormula } | { ok: false; issues: Issue[] };

/** Seconds per unit of timeOperator diff below a month. */
const UNIT_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400 };
/** Largest amount per unit that timeOperator add/subtract accepts; beyond it the result is null, never an error. */
const MAX_AMOUNT: Record<string, number> = { second: 1.5e11, minute: 2.5e9, hour: 4e7, day: 1.7e6, month: 60_000, year: 5000 };

export class FormulaCompiler implements FormulaContext {
  readonly issues: Issue[] = [];
  readonly references = new Set<number>();
  private aliases = 0;

  constructor(readonly scope: FormulaScope) {}

  issue(code: string, path: string, message: string): null {
    this.issues.push({ code, path, message });
    return null;
  }

  /** A fresh alias for a table inside a subquery. */
  alias(base: string): string {
    return `${base}_${this.aliases++}`;
  }

  /** A query filter over the rows of `ctx`, as a SQL condition (false when it has issues). */
  filter(filter: unknown, ctx: RowContext, path: string): { sql: string; bindings: unknown[] } {
    try {
      const sql = compileFilter(filter, ctx.fields, { alias: ctx.alias, path });
      this.noteFilterFields(filter, ctx.fields);
      return sql;
    } catch (error) {
      if (!(error instanceof BadRequestError)) throw error;
      for (const issue of (error.details?.issues ?? []) as Issue[]) {
        if (issue.code === 'not_filterable')
          this.issue('formula_reference', issue.path, 'names a formula field: a formula may not reference another formula column');
        else this.issues.push(issue);
      }
      return { sql: 'false', bindings: [] };
    }
  }

  private noteFilterFields(filter: unknown, fields: readonly FieldModel[]): void {
    if (!filter || typeof filter !== 'object') return;
    const node = filter as Record<string, unknown>;
    for (const key of ['and', 'or']) if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((child) => this.noteFilterFields(child, fields));
    const resolved = 'field' in node ? resolveOperand(node.field, fields) : null;
    if (resolved?.ok && resolved.operand.field) this.references.add(resolved.operand.field.id);
  }

  /** The value of a field of the row of `ctx`, named by a bare name or a system field. */
  readField(name: string, ctx: RowContext, path: string): Typed | null {
    const system = systemValue(name, ctx.alias);
    if (system) return system;
    const field = ctx.fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
    if (!field) return this.issue('not_found', path, `names no field of "${ctx.tableName}" (${JSON.stringify(name)})`);
    const reason = unreadableReason(field);
    if (reason) return this.issue(reason.code, path, reason.message);
    this.references.add(field.id);
    return fieldValue(field, ctx.alias);
  }

  node(node: FormulaNode, path: string, ctx: RowContext): Typed | null {
    switch (node.type) {
      case 'constant':
        return typeof node.value === 'number' ? typed('number', '?::numeric', node.value) : typed('string', '?::text', node.value);
      case 'field':
        return this.field(node, path, ctx);
      case 'operator':
        return this.operator(node, path, ctx);
      case 'aggregate':
        return compileAggregate(this, node, path, ctx);
      case 'padLeft': {
        const value = this.node(node.value as FormulaNode, `${path}.value`, ctx);
        if (!value) return null;
        const text = asText(value);
        return typed(
          'string',
          `lpad(${text.sql}, greatest(?::integer, length(${text.sql})), ?::text)`,
          ...text.bindings,
          node.length,
          ...text.bindings,
          node.char,
        );
      }
      case 'ifElse':
        return this.ifElse(node, path, ctx);
      case 'timeOperator':
        return this.timeOperator(node, path, ctx);
    }
  }

  private field(node: FormulaNode, path: string, ctx: RowContext): Typed | null {
    const ref = parseFieldRef(node.field as string)!;
    // Issues about the reference point at the field node itself, which is the reference.
    const value = ref.length === 2 ? compileLookup(this, ref[0]!, ref[1]!, path, ctx) : this.readField(ref[0]!, ctx, path);
    if (!value || node.fallbackValue === undefined) return value;
    const fallback = this.fallback(node.fallbackValue as string | number, value, `${path}.fallbackValue`);
    return fallback ? typed(value.type, `coalesce(${value.sql}, ${fallback.sql})`, ...value.bindings, ...fallback.bindings) : null;
  }

  /** A fallback of the field's type; a percent field's fallback is divided by 100 like its values. */
  private fallback(raw: string | number, value: Typed, path: string): Typed | null {
    const percent = value.sql.startsWith(PERCENT_OF_COLUMN);
    switch (value.type) {
      case 'number': {
        const number = typeof raw === 'number' ? raw : Number(raw.trim() === '' ? Number.NaN : raw);
        if (!Number.isFinite(number)) return this.issue('type_mismatch', path, 'must be a number: the field is a number field');
        return percent ? typed('number', '(?::numeric * 0.01)', number) : typed('number', '?::numeric', number);
      }
      case 'string':
        return typed('string', '?::text', String(raw));
      case 'date': {
        const parsed = parseInstant(raw);
        return parsed.ok
          ? typed('date', '?::timestamptz', parsed.value.from)
          : this.issue('type_mismatch', path, 'must be an ISO 8601 date-time: the field is a date field');
      }
      case 'dateOnly':
        return parseDateOnly(raw).ok
          ? typed('dateOnly', '?::date', raw)
          : this.issue('type_mismatch', path, 'must be a date YYYY-MM-DD: the field is a date field');
      case 'boolean':
        return this.issue('type_mismatch', path, 'a boolean field takes no fallback value');
    }
  }

  /** Compiles the arguments; null when any of them has issues. */
  private args(node: FormulaNode, path: string, ctx: RowContext): Typed[] | null {
    const values = (node.arguments as FormulaNode[]).map((arg, i) => this.node(arg, `${path}.arguments[${i}]`, ctx));
    return values.every((v) => v !== null) ? (values as Typed[]) : null;
  }

  /** Issues for arguments that are not numbers; true when all are. */
  numeric(values: Typed[], path: string, what: string): boolean {
    let ok = true;
    values.forEach((value, i) => {
      if (value.type !== 'number')
        ok = !!this.issue('not_numeric', `${path}.arguments[${i}]`, `is a ${value.type} value; ${what} accepts numeric inputs only`);
    });
    return ok;
  }

  private operator(node: FormulaNode, path: string, ctx: RowContext): Typed | null {
    const values = this.args(node, path, ctx);
    if (!values) return null;
    const bindings = values.flatMap((v) => v.bindings);
    if (node.operator === 'concat') {
      const texts = values.map(asText);
      return typed('string', `concat(${texts.map((t) => t.sql).join(', ')})`, ...texts.flatMap((t) => t.bindings));
    }
    if (!this.numeric(values, path, node.operator as string)) return null;
    const symbol = { add: '+', subtract: '-', multiply: '*', divide: '/' }[node.operator as 'add'];
    // Division by zero gives null, not an error.
    const operands = values.map((v, i) => (node.operator === 'divide' && i > 0 ? `nullif(${v.sql}, 0)` : v.sql));
    return typed('number', `(${operands.join(` ${symbol} `)})`, ...bindings);
  }

  private ifElse(node: FormulaNode, path: string, ctx: RowContext): Typed | null {
    const condition = this.filter(node.filter, ctx, `${path}.filter`);
    const then = this.node(node.then as FormulaNode, `${path}.then`, ctx);
    const otherwise = this.node(node.else as FormulaNode, `${path}.else`, ctx);
    if (!then || !otherwise) return null;
    // Branches of different types meet as text, so a row never fails on a type mismatch.
    const [a, b] = then.type === otherwise.type ? [then, otherwise] : [asText(then), asText(otherwise)];
    return typed(a.type, `(case when ${condition.sql} then ${a.sql} else ${b.sql} end)`, ...condition.bindings, ...a.bindings, ...b.bindings);
  }

  /** A date argument: a date value, or a constant string that reads as a date. */
  private dateArg(node: FormulaNode, value: Typed, path: string): Typed | null {
    if (value.type === 'date' || value.type === 'dateOnly') return value;
    if (node.type === 'constant' && typeof node.value === 'string') {
      if (parseDateOnly(node.value).ok) return typed('dateOnly', '?::date', node.value);
      const instant = parseInstant(node.value);
      if (instant.ok) return typed('date', '?::timestamptz', instant.value.from);
    }
    return this.issue('not_a_date', path, `is a ${value.type} value; timeOperator needs a date here`);
  }

  private timeOperator(node: FormulaNode, path: string, ctx: RowContext): Typed | null {
    const values = this.args(node, path, ctx);
    if (!values) return null;
    const [argA, argB] = node.arguments as FormulaNode[];
    const unit = node.unit as string;
    const first = this.dateArg(argA!, values[0]!, `${path}.arguments[0]`);
    if (node.operator === 'diff') {
      const second = this.dateArg(argB!, values[1]!, `${path}.arguments[1]`);
      if (!first || !second) return null;
      const [a, b] = [asInstant(first), asInstant(second)];
      const both = [...a.bindings, ...b.bindings];
      if (unit === 'month' || unit === 'year') {
        const age = `age(${a.sql}, ${b.sql})`;
        return unit === 'year'
          ? typed('number', `extract(year from ${age})`, ...both)
          : typed('number', `(extract(year from ${age}) * 12 + extract(month from ${age}))`, ...both, ...both);
      }
      return typed('number', `trunc(extract(epoch from (${a.sql} - ${b.sql})) / ${UNIT_SECONDS[unit]})`, ...both);
    }
    if (values[1]!.type !== 'number') {
      return this.issue(
        'not_numeric',
        `${path}.arguments[1]`,
        `is a ${values[1]!.type} value; timeOperator ${node.operator as string} needs a number of ${unit}s`,
      );
    }
    if (!first) return null;
    const sign = node.operator === 'add' ? '+' : '-';
    const amount = values[1]!;
    const calendar = first.type === 'dateOnly' && ['day', 'month', 'year'].includes(unit);
    const base = calendar ? first : asInstant(first);
    const shifted = `(${base.sql} ${sign} (${amount.sql})::float8 * interval '1 ${unit}')`;
    return typed(
      calendar ? 'dateOnly' : 'date',
      `(case when abs(${amount.sql}) <= ${MAX_AMOUNT[unit]} then ${calendar ? `${shifted}::date` : shifted} end)`,
      ...amount.bindings,
      ...base.bindings,
      ...amount.bindings,
    );
  }
}

/**
 * Compiles a formula's metadata over the row aliased `alias` of the scope's table. `path` is the root of issue
 * paths (`metadata`). The metadata's shape is already checked (formula.field.ts).
 */
export function compileFormula(metadata: Record<string, unknown>, scope: FormulaScope, alias: string, path = 'metadata'): CompileResult {
  const compiler = new FormulaCompiler(scope);
  const ctx: RowContext = { fields: scope.fields, alias, tableName: scope.tableName, own: true };
  let value = compiler.node(metadata.expression as FormulaNode, `${path}.expression`, ctx);
  if (value && metadata.applyIf !== undefined) {
    const condition = compiler.filter(metadata.applyIf, ctx, `${path}.applyIf`);
    value = typed(value.type, `(case when ${condition.sql} then ${value.sql} end)`, ...condition.bindings, ...value.bindings);
  }
  if (value) value = shapeOutput(compiler, value, metadata, path);
  if (compiler.issues.length || !value) {
    return {
      ok: false,
      issues: compiler.issues.length ? compiler.issues : [{ code: 'invalid', path: `${path}.expression`, message: 'is not a valid formula' }],
    };
  }
  return { ok: true, formula: { ...value, references: compiler.references } };
}
