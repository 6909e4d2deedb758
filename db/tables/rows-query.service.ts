/** rows/list and rows/count: one query shape (filter, search, record type) compiled to SQL, keyset-paginated. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sqlOf } from './catalog.js';
import { qualified, rowColumns, rowTableName } from './ddl.js';
import { cursorFromRow, decodeCursor, keysetCondition, sortKeySelect } from './query/cursor.js';
import { compileFilter } from './query/filter.js';
import { joinFragments, type SqlFragment } from './query/fragment.js';
import { compileSearch } from './query/search.js';
import { compileSort, orderByClause, type SortKey } from './query/sort.js';
import { toViews, type TableContext } from './rows.service.js';
import type { RowView } from './row-values.js';

export interface RowQuery {
  filter?: unknown;
  sort?: unknown[];
  search?: string;
  recordTypeId?: number;
  limit?: number;
  cursor?: string;
}

const ALIAS = 'r';

function whereOf({ fields }: TableContext, q: RowQuery): SqlFragment {
  const parts: SqlFragment[] = [compileFilter(q.filter, fields, { alias: ALIAS, path: 'filter' }), compileSearch(q.search, ALIAS)];
  if (q.recordTypeId !== undefined) parts.push({ sql: `"${ALIAS}"."record_type_id" = ?`, bindings: [q.recordTypeId] });
  return joinFragments(parts, ' and ');
}

/**
 * The SQL of rows/list: the rows matching `q`, after its cursor, in its order, with their sort keys (`keys`);
 * at most `limit` of them when given. Exports run it whole through a database cursor.
 */
export function listQuery(ctx: TableContext, q: RowQuery, limit?: number): { sql: string; bindings: unknown[]; keys: SortKey[] } {
  const keys = compileSort(q.sort, ctx.fields, ALIAS);
  const where = [whereOf(ctx, q)];
  if (q.cursor) where.push(keysetCondition(keys, decodeCursor(q.cursor, keys.length)));
  const condition = joinFragments(where, ' and ');
  const select = sortKeySelect(keys);
  const order = orderByClause(keys);
  const sql = `select ${rowColumns(ctx.fields, `"${ALIAS}".`)}, ${select.sql} from ${qualified(rowTableName(ctx.table.id))} as "${ALIAS}" where ${condition.sql} order by ${order.sql}`;
  const bindings = [...select.bindings, ...condition.bindings, ...order.bindings];
  return limit === undefined ? { sql, bindings, keys } : { sql: `${sql} limit ?`, bindings: [...bindings, limit], keys };
}

export async function listRows(em: EntityManager, ctx: TableContext, q: RowQuery): Promise<{ agentry: RowView[]; nextCursor: string | null }> {
  const limit = q.limit ?? 50;
  const { sql, bindings, keys } = listQuery(ctx, q, limit + 1);
  const trx = sqlOf(em);
  const rows = await query(trx, sql, bindings);
  const page = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? cursorFromRow(page[page.length - 1]!, keys) : null;
  return { agentry: await toViews(trx, ctx.fields, page), nextCursor };
}

export async function countRows(em: EntityManager, ctx: TableContext, q: RowQuery): Promise<number> {
  const where = whereOf(ctx, q);
  const [row] = await query<{ count: number }>(
    sqlOf(em),
    `select count(*)::int as count from ${qualified(rowTableName(ctx.table.id))} as "${ALIAS}" where ${where.sql}`,
    where.bindings,
  );
  return row!.count;
}
