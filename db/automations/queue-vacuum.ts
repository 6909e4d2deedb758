/**
 * Keeps agentry's queue tables lean where PostgreSQL's autovacuum does not: every run inserts and updates rows of
 * these tables (an outbox event dispatched, an admission freed, a ledger row ended), and each update leaves a dead
 * row that every later claim, count and lookup steps over until a vacuum removes it. With autovacuum on (PostgreSQL's
 * default) this does nothing; with it off, globally or for the table, a worker vacuums and analyzes a table once its
 * dead rows pass the threshold below, as autovacuum would, only sooner (a queue's dead rows cost on every pass).
 */
import type { Knex } from '@mikro-orm/postgresql';

/** The tables every run writes to more than once. */
export const QUEUE_TABLES = ['outbox_events', 'admitted_runs', 'workflow_runs', 'node_effects', 'workflows'];

/** A table is vacuumed past this many dead rows plus this share of its live rows (autovacuum: 50 and 20 %). */
const DEAD_ROWS = 1_000;
const DEAD_SHARE = 0.1;

/** Vacuums (and analyzes) the queue tables that autovacuum leaves alone and that need it; answers their names. */
export async function vacuumQueueTables(knex: Knex): Promise<string[]> {
  const result = await knex.raw(
    `select s.relname from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema() and s.relname = any(?)
        and (current_setting('autovacuum') = 'off' or 'autovacuum_enabled=false' = any(coalesce(c.reloptions, '{}')))
        and s.n_dead_tup > ?::int + ?::float8 * s.n_live_tup
      order by s.relname`,
    [QUEUE_TABLES, DEAD_ROWS, DEAD_SHARE],
  );
  const tables = result.rows.map((r: { relname: string }) => r.relname);
  // SKIP_LOCKED: a table another worker is vacuuming is left to it.
  for (const table of tables) await knex.raw(`vacuum (analyze, skip_locked) ??`, [table]);
  return tables;
}
