/**
 * Retention of `node_effects`, the recorded outcomes that make node executions safe to retry. An outcome is only
 * read by a retry of its own execution, which Temporal gives up on long before this, so old ones can go.
 */
import type { Knex } from '@mikro-orm/postgresql';

/** How long a node execution's recorded outcome is kept. */
export const NODE_EFFECT_RETENTION_DAYS = 30;

/** Deletes outcomes recorded before `before`; answers how many. */
export async function pruneNodeEffects(knex: Knex, before: Date): Promise<number> {
  const result = await knex.raw('delete from node_effects where created_at < ?', [before]);
  return result.rowCount ?? 0;
}
