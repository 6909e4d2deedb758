import { expect } from 'chai';
import { vacuumQueueTables } from '../../db/automations/queue-vacuum.js';
import { harness } from '../setup/harness.js';
import { waitUntil } from '../setup/runs.js';

describe('queue tables without autovacuum', function () {
  this.timeout(30_000);

  /** The table's dead rows as PostgreSQL counts them (its counts reach the view within a second or so). */
  async function deadRows(table: string): Promise<number> {
    const knex = harness().orm.em.getKnex();
    const result = await knex.raw('select n_dead_tup from pg_stat_user_tables where relname = ?', [table]);
    return Number(result.rows[0]?.n_dead_tup ?? 0);
  }

  it('vacuums a queue table once its dead rows pass the threshold, and leaves it alone before', async () => {
    const knex = harness().orm.em.getKnex();
    // Off for this table whatever the server's setting: what a server with autovacuum off does to all of them.
    await knex.raw('alter table node_effects set (autovacuum_enabled = false)');
    try {
      await knex.raw('vacuum node_effects');
      await knex.raw(
        `insert into node_effects (execution_key, output, created_at) select 'vacuum-test#' || i, 'null'::jsonb, now() from generate_series(1, 3000) i`,
      );
      expect(await vacuumQueueTables(knex)).to.not.include('node_effects');
      await knex.raw(`delete from node_effects where execution_key like 'vacuum-test#%'`);
      await waitUntil(
        () => deadRows('node_effects'),
        (dead) => dead >= 3000,
        'the deleted rows counted dead',
      );
      expect(await vacuumQueueTables(knex)).to.include('node_effects');
      await waitUntil(
        () => deadRows('node_effects'),
        (dead) => dead < 1000,
        'the dead rows gone',
      );
    } finally {
      await knex.raw('alter table node_effects reset (autovacuum_enabled)');
    }
  });
});
