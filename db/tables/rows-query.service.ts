/** rows/list and rows/count: one query shape (filter, search, record type) compiled to SQL, keyset-paginated. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sqlOf } from './table-lookups.js';
import { rowColumns } from './ddl.js';
import { rowSource } from './formulas/formula-source.js';
import { cursorFromRow, decodeCursor, keysetCondition, sortKeySelect } from './query/cursor.js';
import { compileFilter } from './query/filter.js';
import { fragment, joinFragments, type SqlFragment } from './query/fragment.js';
import { compileSearch } from './query/search.js';
import { compileSort, orderByClause, type SortKey } from './query/sort.js';
import { toViews, type TableContext } from './rows.service.js';
import type { RowView } from './row-values.js';
import type { FieldModel } from './types.js';

export interface RowQuery {
  filter?: unknown;
  sort?: unknown[];
  search?: string;
  recordTypeId?: number;
  limit?: number;
  cursor?: string;
}

/** Alias of the row source in row queries. */
export const ALIAS = 'r';

/** The condition of a row query over a row source's fields (formula columns included). */
export function whereOf(fields: FieldModel[], q: Pick<RowQuery, 'filter' | 'search' | 'recordTypeId'>, path = 'filter'): SqlFragment {
  const computedText = fields.filter((f) => f.formulaType === 'string').map((f) => f.column!);
  const parts: SqlFragment[] = [compileFilter(q.filter, fields, { alias: ALIAS, path }), compileSearch(q.search, ALIAS, computedText)];
  if (q.recordTypeId !== undefined) parts.push({ sql: `"${ALIAS}"."record_type_id" = ?`, bindings: [q.recordTypeId] });
  return joinFragments(parts, ' and ');
}

/**
 * The SQL of rows/list in one step: the rows matching `q` (formula columns computed), after its cursor, in its order,
 * with their sort keys, and the fields to read them with. Exports run it whole through a database cursor.
 */
export async function listQuery(
  em: EntityManager,
  ctx: TableContext,
  q: RowQuery,
  columns?: (fields: FieldModel[]) => SqlFragment,
): Promise<{ sql: string; bindings: unknown[]; keys: SortKey[]; fields: FieldModel[] }> {
  const source = await rowSource(em, ctx.table, ctx.fields);
  const keys = compileSort(q.sort, source.fields, ALIAS);
  const where = [whereOf(source.fields, q)];
  if (q.cursor) where.push(keysetCondition(keys, decodeCursor(q.cursor, keys.length)));
  const condition = joinFragments(where, ' and ');
  // The row columns and sort keys, unless `columns` selects something else over the source's fields under ALIAS.
  const sortKeys = sortKeySelect(keys);
  const select = columns?.(source.fields) ?? { sql: `${rowColumns(source.fields, `"${ALIAS}".`)}, ${sortKeys.sql}`, bindings: sortKeys.bindings };
  const order = orderByClause(keys);
  const from = source.from(ALIAS);
  const sql = `select ${select.sql} from ${from.sql} where ${condition.sql} order by ${order.sql}`;
  return { sql, bindings: [...select.bindings, ...from.bindings, ...condition.bindings, ...order.bindings], keys, fields: source.fields };
}

export async function listRows(em: EntityManager, ctx: TableContext, q: RowQuery): Promise<{ agentry: RowView[]; nextCursor: string | null }> {
  const limit = q.limit ?? 50;
  const source = await rowSource(em, ctx.table, ctx.fields);
  const keys = compileSort(q.sort, source.fields, ALIAS);
  const where = [whereOf(source.fields, q)];
  if (q.cursor) where.push(keysetCondition(keys, decodeCursor(q.cursor, keys.length)));
  const condition = joinFragments(where, ' and ');
  const order = orderByClause(keys);
  const from = source.from(ALIAS);
  const trx = sqlOf(em);
  // Two steps in one statement: the page's ids and sort keys first, over narrow rows and reading only the formula
  // columns the filter and sort use (so PostgreSQL may scan in parallel), then the page's rows with every column
  // (formula columns included) by id, and the cursor text of the page's keys only.
  const inner = keys.map((key, i) => fragment(`${key.sql} as ??`, ...key.bindings, `_s${i}`));
  const page: SortKey[] = keys.map((key, i) => ({ ...key, sql: '??', bindings: [`p._s${i}`] }));
  const select = sortKeySelect(page);
  const pageOrder = orderByClause(page);
  const rowsFrom = source.from(ALIAS);
  const sql = `select ${rowColumns(source.fields, `"${ALIAS}".`)}, ${select.sql}
    from (select "${ALIAS}"."id" as "_id", ${inner.map((f) => f.sql).join(', ')} from ${from.sql} where ${condition.sql} order by ${order.sql} limit ?) as "p"
    join ${rowsFrom.sql} on "${ALIAS}"."id" = "p"."_id" order by ${pageOrder.sql}`;
  const rows = await query(trx, sql, [
    ...select.bindings,
    ...inner.flatMap((f) => f.bindings),
    ...from.bindings,
    ...condition.bindings,
    ...order.bindings,
    limit + 1,
    ...rowsFrom.bindings,
    ...pageOrder.bindings,
  ]);
  const pageRows = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? cursorFromRow(pageRows[pageRows.length - 1]!, keys) : null;
  return { agentry: await toViews(trx, source.fields, pageRows), nextCursor };
}

export async function countRows(em: EntityManager, ctx: TableContext, q: RowQuery): Promise<number> {
  const source = await rowSource(em, ctx.table, ctx.fields);
  const where = whereOf(source.fields, q);
  const from = source.from(ALIAS);
  const [row] = await query<{ count: number }>(sqlOf(em), `select count(*)::int as count from ${from.sql} where ${where.sql}`, [
    ...from.bindings,
    ...where.bindings,
  ]);
  return row!.count;
}
