/**
 * Effects done once per key: the one home of the `node_effects` table. A side effect of a node execution (or of
 * another at-least-once step: a turn's count, a person's message accepted, a voice message heard, an AI call's
 * charge) is recorded under a key that names the execution, in the transaction or the statement of the effect, so a
 * retried attempt answers what its first attempt did instead of doing it again. Every writer claims keys here:
 *
 * - `once`: claims the key, runs the effect, records its output (any effect; two attempts at once serialize);
 * - `onceWrites`: runs the effect, then claims the key with its output (effects made only of writes; one round trip
 *   less);
 * - `claimEffects`: the claim as a CTE body, for an effect written in one statement with its claim;
 * - `recordedEffect`: the output recorded under a key; `pruneNodeEffects`: retention.
 */
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { NodeEffect } from './node-effect.entity.js';

/** How long an effect's recorded output is kept: only a retry of its own execution reads it, long before this. */
export const NODE_EFFECT_RETENTION_DAYS = 30;

/**
 * The body of a CTE that claims keys: `rows` is a SELECT of `(key, output)` pairs (output jsonb, or null), and the
 * CTE holds `execution_key` of each key this statement claimed: none for a key claimed before (by an earlier
 * attempt), whose effect must then not be done again. A concurrent claim of the same key waits for the first's
 * commit.
 */
export function claimEffects(rows: string): string {
  return `insert into node_effects (execution_key, output, created_at)
    select claim.key, claim.output, now() from (${rows}) as claim(key, output)
    on conflict (execution_key) do nothing returning execution_key`;
}

/** The output recorded under `key` (in `em`'s transaction, when it is in one), or undefined when nothing is recorded there. */
export async function recordedEffect<T>(em: EntityManager, key: string): Promise<T | undefined> {
  const rows = await em
    .getConnection()
    .execute<{ output: T }[]>('select output from node_effects where execution_key = ?', [key], 'all', em.getTransactionContext());
  return rows.length ? rows[0]!.output : undefined;
}

/**
 * Runs `effect` once per key: its output is recorded under the key in the same transaction, and an attempt that
 * finds a recorded output answers it without running `effect` again. Two attempts at once (a lost heartbeat)
 * serialize on the key: the second waits for the first's commit, then reads its output.
 */
export async function once<T>(em: EntityManager, key: string, effect: (em: EntityManager) => Promise<T>): Promise<T> {
  return em.fork().transactional(async (tx) => {
    const claimed = await tx
      .getConnection()
      .execute<{ execution_key: string }[]>(claimEffects('select ?::text, null::jsonb'), [key], 'all', tx.getTransactionContext());
    if (!claimed.length) {
      const done = await tx.findOneOrFail(NodeEffect, { executionKey: key });
      return done.output as T;
    }
    const output = await effect(tx);
    await tx
      .getConnection()
      .execute(
        'update node_effects set output = ?::jsonb where execution_key = ?',
        [JSON.stringify(output ?? null), key],
        'run',
        tx.getTransactionContext(),
      );
    return output;
  });
}

/** Thrown inside `onceWrites`'s transaction to roll back an attempt whose key was recorded meanwhile. */
class RecordedBefore extends Error {}

/**
 * `once` for an effect made only of writes in its transaction (no call to anything else, since a repeated attempt
 * runs it again): the effect runs first and its output is recorded under the key at the end, in the statement that
 * claims the key (one round trip less than `once`). An attempt that finds the key recorded when it claims it, or
 * whose effect fails, rolls its writes back and answers the recorded output when there is one (a retried delete finds
 * its row gone); otherwise the failure stands. Two attempts at once serialize on the key: the second's claim waits for
 * the first's commit.
 */
export async function onceWrites<T>(em: EntityManager, key: string, effect: (em: EntityManager) => Promise<T>): Promise<T> {
  try {
    return await em.fork().transactional(async (tx) => {
      const output = await effect(tx);
      const claimed = await tx
        .getConnection()
        .execute<{ execution_key: string }[]>(
          claimEffects('select ?::text, ?::jsonb'),
          [key, JSON.stringify(output ?? null)],
          'all',
          tx.getTransactionContext(),
        );
      if (!claimed.length) throw new RecordedBefore();
      return output;
    });
  } catch (error) {
    const done = await em.fork().findOne(NodeEffect, { executionKey: key });
    if (done) return done.output as T;
    throw error instanceof RecordedBefore ? new Error(`The effect of ${key} was recorded and is gone`) : error;
  }
}

/** Deletes outputs recorded before `before`; answers how many. */
export async function pruneNodeEffects(knex: Knex, before: Date): Promise<number> {
  const result = await knex.raw('delete from node_effects where created_at < ?', [before]);
  return result.rowCount ?? 0;
}
