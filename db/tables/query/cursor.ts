/**
 * Opaque keyset cursors. A cursor holds the sort-key values of the last row of a page (as text, read with
 * `sortKeySelect`), and the next page is the rows after that row in the sort order (`keysetCondition`):
 *
 *   const keys = compileSort(body.sort, fields, 'r');
 *   const after = body.cursor ? keysetCondition(keys, decodeCursor(body.cursor, keys.length)) : null;
 *   select r.*, <sortKeySelect(keys)> from data.rows_<id> r where <filter> [and <after>]
 *     order by <orderByClause(keys)> limit <limit + 1>
 *   nextCursor = more rows ? cursorFromRow(lastRowOfPage, keys) : null
 *
 * Values travel as text so nothing is lost (microseconds of timestamps, digits of numerics); each is checked
 * against its key's type before it is cast back in SQL, so a forged cursor is a 400, never a database error.
 */
import { BadRequestError } from '../../../lib/errors.js';
import { fragment, joinFragments, MATCH_NONE, type SqlFragment } from './fragment.js';
import type { SortKey, SortKeyType } from './sort.js';
import { parseDateOnly, parseInstant } from './values.js';

export type CursorValue = string | null;

/** Longest cursor accepted. */
export const MAX_CURSOR_LENGTH = 8192;

function invalidCursor(path: string): BadRequestError {
  return new BadRequestError('Invalid cursor', [{ code: 'invalid', path, message: 'is not a cursor of this list' }]);
}

/** The cursor of a row whose sort-key values are `values`. */
export function encodeCursor(values: unknown[]): string {
  return Buffer.from(JSON.stringify(values.map((v) => (v === undefined ? null : v))), 'utf8').toString('base64url');
}

/** The sort-key values in a cursor, as text or null; 400 `Invalid cursor` unless it holds `keyCount` of them. */
export function decodeCursor(cursor: string, keyCount: number, path = 'cursor'): CursorValue[] {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw invalidCursor(path);
  }
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor(path);
  }
  if (!Array.isArray(values) || values.length !== keyCount) throw invalidCursor(path);
  return values.map((value) => {
    if (value === null || typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'boolean') return String(value);
    throw invalidCursor(path);
  });
}

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)$|^(NaN|[+-]?Infinity)$/;
const INTEGER = /^[+-]?\d{1,10}$/;
const ROW_ID = /^[0-9a-f]{24}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** Whether PostgreSQL reads `value` as `type` without error (the forms `sortKeySelect` writes). */
function fitsType(value: string, type: SortKeyType): boolean {
  switch (type) {
    case 'text':
      return value.length <= 100_000 && !value.includes('\u0000');
    case 'bpchar':
      return ROW_ID.test(value);
    case 'numeric':
      return value.length <= 1000 && NUMERIC.test(value);
    case 'integer':
      return INTEGER.test(value) && Math.abs(Number(value)) <= 2_147_483_648 && Number(value) !== 2_147_483_648;
    case 'boolean':
      return value === 'true' || value === 'false';
    case 'timestamptz':
      return INSTANT.test(value) && parseInstant(value).ok;
    case 'date':
      return parseDateOnly(value).ok;
  }
}

/** Text form of a key's value, as the cursor stores it: lossless, independent of session settings. */
function keyText(key: SortKey): string {
  switch (key.type) {
    case 'text':
      return key.sql;
    case 'timestamptz':
      return `to_char((${key.sql}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    case 'date':
      return `to_char(${key.sql}, 'YYYY-MM-DD')`;
    default:
      return `(${key.sql})::text`;
  }
}

/** Select-list fragment reading the sort-key values of each row as `_k0`, `_k1`, …. */
export function sortKeySelect(keys: readonly SortKey[]): SqlFragment {
  return {
    sql: keys.map((key) => `${keyText(key)} as ??`).join(', '),
    bindings: keys.flatMap((key, index) => [...key.bindings, `_k${index}`]),
  };
}

/** The cursor of a row read with `sortKeySelect`. */
export function cursorFromRow(row: Record<string, unknown>, keys: readonly SortKey[]): string {
  return encodeCursor(keys.map((_, index) => row[`_k${index}`] ?? null));
}

/**
 * The condition "the row comes after the row whose key values are `values`" in the order of `keys` (NULLS LAST
 * in both directions), in the expanded form
 *   (k0 after v0) or (k0 = v0 and k1 after v1) or (k0 = v0 and k1 = v1 and k2 after v2) …
 * where "= null" is `is null`, "after v" is `(k > v or k is null)` ascending and `(k < v or k is null)`
 * descending (plain `k > v` for a key that is never null, the row id), and nothing comes after a null on its own key.
 */
export function keysetCondition(keys: readonly SortKey[], values: readonly unknown[], path = 'cursor'): SqlFragment {
  if (values.length !== keys.length) throw invalidCursor(path);
  const texts = values.map((value, index) => {
    if (value === null || value === undefined) return null;
    const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
    if (text === undefined || !fitsType(text, keys[index]!.type)) throw invalidCursor(path);
    return text;
  });
  const equal = (key: SortKey, value: string | null): SqlFragment =>
    value === null ? fragment(`${key.sql} is null`, ...key.bindings) : fragment(`${key.sql} = ?::${key.type}`, ...key.bindings, value);
  const disjuncts: SqlFragment[] = [];
  keys.forEach((key, i) => {
    const value = texts[i]!;
    if (value === null) return;
    const comparison = key.direction === 'asc' ? '>' : '<';
    const after = key.notNull
      ? fragment(`${key.sql} ${comparison} ?::${key.type}`, ...key.bindings, value)
      : fragment(`(${key.sql} ${comparison} ?::${key.type} or ${key.sql} is null)`, ...key.bindings, value, ...key.bindings);
    disjuncts.push(joinFragments([...keys.slice(0, i).map((k, j) => equal(k, texts[j]!)), after], ' and '));
  });
  return disjuncts.length ? joinFragments(disjuncts, ' or ') : MATCH_NONE;
}
