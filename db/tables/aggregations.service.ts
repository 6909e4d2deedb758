/**
 * View aggregations: per view and field one operation, stored with the view, and computed together in one SQL
 * statement over the rows the view shows (its filter and record type) or over a given query. Formula columns are
 * aggregated like stored ones, through the table's row source.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { AGGREGATION_OPERATIONS, DataViewAggregation, type AggregationOperation } from './data-view-aggregation.entity.js';
import type { DataTable } from './data-table.entity.js';
import type { DataView } from './data-view.entity.js';
import { fieldModels, query, sqlOf } from './table-lookups.js';
import { fromDbValue } from './field-types/values.js';
import { rowSource } from './formulas/formula-source.js';
import { compileFilter } from './query/filter.js';
import { joinFragments, qualified, type SqlFragment } from './query/fragment.js';
import { operandKind } from './query/operand.js';
import type { OperandKind } from './query/operators.js';
import { ALIAS, whereOf, type RowQuery } from './rows-query.service.js';
import type { FieldModel } from './types.js';

export interface AggregationInput {
  fieldId: number;
  operation: string;
}

/** Kinds of values each operation reads; the emptiness and count operations take any field. */
const NUMERIC: OperandKind[] = ['number'];
const ORDERED: OperandKind[] = ['number', 'date', 'dateOnly'];
const UNIQUE_UNSUPPORTED: OperandKind[] = ['relation:multi', 'file'];

function aggregationView(aggregation: DataViewAggregation) {
  return {
    id: aggregation.id,
    viewId: aggregation.view.id,
    fieldId: aggregation.field.id,
    operation: aggregation.operation,
    order: aggregation.position,
    createdAt: aggregation.createdAt.toISOString(),
    updatedAt: aggregation.updatedAt.toISOString(),
  };
}

/** 400 unless the operation applies to the field (sum and avg need numbers; min and max numbers or dates). */
function checkOperation(field: FieldModel, operation: string): AggregationOperation {
  if (!(AGGREGATION_OPERATIONS as readonly string[]).includes(operation)) {
    throw new BadRequestError(`Unknown operation "${operation}"`, [
      { code: 'invalid', path: 'operation', message: `must be one of ${AGGREGATION_OPERATIONS.join(', ')}` },
    ]);
  }
  const kind = operandKind(field);
  const refuse = (what: string) => {
    throw new BadRequestError(`${operation} needs ${what}; "${field.name}" is a ${kind.replace(':', ' ')} field`, [
      { code: 'invalid_operation', path: 'operation', message: `${operation} needs ${what}` },
    ]);
  };
  if ((operation === 'sum' || operation === 'avg') && !NUMERIC.includes(kind)) refuse('a number field');
  if ((operation === 'min' || operation === 'max') && !ORDERED.includes(kind)) refuse('a number or date field');
  if ((operation === 'unique' || operation === 'percentUnique') && UNIQUE_UNSUPPORTED.includes(kind)) refuse('a single-valued field');
  return operation as AggregationOperation;
}

/** The field of the table, read through the row source (a formula field with its computed type). */
async function readableField(em: EntityManager, table: DataTable, fieldId: number): Promise<FieldModel> {
  const source = await rowSource(em, table, await fieldModels(em, table));
  const field = source.fields.find((f) => f.id === fieldId);
  if (!field)
    throw new BadRequestError(`Field ${fieldId} is not a field of "${table.name}"`, [
      { code: 'not_found', path: 'fieldId', message: `no field ${fieldId} in "${table.name}"` },
    ]);
  return field;
}

export async function listAggregations(em: EntityManager, view: DataView) {
  const list = await em.find(DataViewAggregation, { view }, { orderBy: { position: 'asc', id: 'asc' } });
  return list.map(aggregationView);
}

export async function createAggregation(em: EntityManager, table: DataTable, view: DataView, input: AggregationInput) {
  const field = await readableField(em, table, input.fieldId);
  const operation = checkOperation(field, input.operation);
  const existing = await em.find(DataViewAggregation, { view });
  if (existing.some((a) => a.field.id === field.id))
    throw new ConflictError(`View ${view.id} already aggregates "${field.name}"; change that aggregation's operation instead`);
  const aggregation = em.create(DataViewAggregation, {
    view,
    field: field.id,
    operation,
    position: existing.reduce((max, a) => Math.max(max, a.position), -1) + 1,
  });
  await em.flush();
  return aggregationView(aggregation);
}

export async function findAggregation(em: EntityManager, view: DataView, id: number): Promise<DataViewAggregation> {
  const aggregation = await em.findOne(DataViewAggregation, { id, view });
  if (!aggregation) throw new NotFoundError(`Aggregation ${id} not found`);
  return aggregation;
}

export async function updateAggregation(em: EntityManager, table: DataTable, aggregation: DataViewAggregation, patch: { operation: string }) {
  aggregation.operation = checkOperation(await readableField(em, table, aggregation.field.id), patch.operation);
  await em.flush();
  return aggregationView(aggregation);
}

export async function deleteAggregation(em: EntityManager, aggregation: DataViewAggregation): Promise<void> {
  em.remove(aggregation);
  await em.flush();
}

/** SQL of one aggregation over the rows aliased ALIAS. */
function aggregateSql(field: FieldModel, operation: AggregationOperation, fields: FieldModel[]): SqlFragment {
  const condition = (operator: 'isEmpty' | 'isNotEmpty') => compileFilter({ field: field.id, operator }, fields, { alias: ALIAS });
  const share = (count: SqlFragment) => ({ sql: `round(100.0 * ${count.sql} / nullif(count(*), 0), 2)`, bindings: count.bindings });
  const column = () => ({ sql: '??', bindings: [qualified(ALIAS, field.column!)] });
  const over = (fn: string) => {
    const c = column();
    return { sql: `${fn}(${c.sql})`, bindings: c.bindings };
  };
  const where = (c: SqlFragment) => ({ sql: `count(*) filter (where ${c.sql})`, bindings: c.bindings });
  const distinct = () => ({ sql: 'count(distinct ??)', bindings: column().bindings });
  switch (operation) {
    case 'count':
      return { sql: 'count(*)', bindings: [] };
    case 'countEmpty':
      return where(condition('isEmpty'));
    case 'countFilled':
      return where(condition('isNotEmpty'));
    case 'percentEmpty':
      return share(where(condition('isEmpty')));
    case 'percentFilled':
      return share(where(condition('isNotEmpty')));
    case 'unique':
      return distinct();
    case 'percentUnique':
      return share(distinct());
    default:
      return over(operation);
  }
}

/** Body of compute: a query replacing the view's filter (the view's record type still applies). */
export type ComputeQuery = Pick<RowQuery, 'filter' | 'search'>;

/** Computes every aggregation of the view in one statement; values are numbers, or ISO dates for min/max of dates. */
export async function computeAggregations(em: EntityManager, table: DataTable, view: DataView, body: ComputeQuery = {}) {
  const aggregations = await em.find(DataViewAggregation, { view }, { orderBy: { position: 'asc', id: 'asc' } });
  const source = await rowSource(em, table, await fieldModels(em, table));
  const given = body.filter !== undefined || body.search !== undefined;
  const parts = [given ? whereOf(source.fields, body) : compileFilter(view.filter, source.fields, { alias: ALIAS, path: 'view.filter' })];
  if (view.recordType) parts.push({ sql: `"${ALIAS}"."record_type_id" = ?`, bindings: [view.recordType.id] });
  const where = joinFragments(parts, ' and ');
  const entries = aggregations.map((a) => ({ aggregation: a, field: source.fields.find((f) => f.id === a.field.id)! }));
  // A formula whose type changed since the aggregation was set up may no longer fit its operation: that one is null.
  const fits = (field: FieldModel, operation: string) => {
    try {
      return checkOperation(field, operation) === operation;
    } catch {
      return false;
    }
  };
  const selects = entries.map(({ aggregation, field }, i) => ({
    ...(fits(field, aggregation.operation) ? aggregateSql(field, aggregation.operation, source.fields) : { sql: 'null', bindings: [] }),
    alias: `a${i}`,
  }));
  const from = source.from(ALIAS);
  const sql = `select ${['count(*)::int as "_rows"', ...selects.map((s) => `${s.sql} as "${s.alias}"`)].join(', ')} from ${from.sql} where ${where.sql}`;
  const [row] = await query(sqlOf(em), sql, [...selects.flatMap((s) => s.bindings), ...from.bindings, ...where.bindings]);
  return {
    rows: row!._rows as number,
    agentry: entries.map(({ aggregation, field }, i) => {
      const raw = row![`a${i}`];
      const keepsType = aggregation.operation === 'min' || aggregation.operation === 'max';
      return {
        ...aggregationView(aggregation),
        value: raw === null || raw === undefined ? null : keepsType ? fromDbValue(field, raw) : Number(raw),
      };
    }),
  };
}
