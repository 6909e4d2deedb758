/**
 * SQL fragments for `knex.raw(sql, bindings)`: `??` stands for an identifier (quoted by knex), `?` for a value
 * (sent as a query parameter). User data only ever travels in `bindings`, never in `sql`.
 */

export interface SqlFragment {
  sql: string;
  bindings: unknown[];
}

/** The condition that holds for every row. */
export const MATCH_ALL: SqlFragment = Object.freeze({ sql: 'true', bindings: Object.freeze<unknown[]>([]) as unknown[] });

/** The condition that holds for no row. */
export const MATCH_NONE: SqlFragment = Object.freeze({ sql: 'false', bindings: Object.freeze<unknown[]>([]) as unknown[] });

export function fragment(sql: string, ...bindings: unknown[]): SqlFragment {
  return { sql, bindings };
}

/**
 * `(a sep b sep c)`; each part's bindings follow in order. A single part is returned as is: every fragment of
 * this module is one predicate or parenthesized, so it needs no parentheses of its own.
 */
export function joinFragments(parts: SqlFragment[], separator: string): SqlFragment {
  if (parts.length === 1) return parts[0]!;
  return {
    sql: `(${parts.map((part) => part.sql).join(separator)})`,
    bindings: parts.flatMap((part) => part.bindings),
  };
}

/** `alias.column` as knex expects it for a `??` binding (rendered as `"alias"."column"`). */
export function qualified(alias: string, column: string): string {
  return `${alias}.${column}`;
}
