/**
 * Token buckets shared by every API process (DESIGN.md, Many API processes): `agentry_take_token` refills and takes
 * in one statement on the UNLOGGED `rate_limit_buckets`, so a limit holds for the whole platform at one round trip
 * per limited request. A bucket that would be full again is the same as none: `sweepFullBuckets` removes those rows.
 */
import type { Knex } from '@mikro-orm/postgresql';

/** Takes one token of `key`: 0 when granted, else the seconds until one is available. */
export async function takeToken(knex: Knex, key: string, perSecond: number, burst: number): Promise<number> {
  const { rows } = await knex.raw<{ rows: { wait: number }[] }>('select agentry_take_token(?, ?, ?) as wait', [key, perSecond, burst]);
  return Number(rows[0].wait);
}

/** Removes the buckets that have refilled; answers how many. */
export async function sweepFullBuckets(knex: Knex): Promise<number> {
  const { rowCount } = await knex.raw<{ rowCount: number }>('delete from rate_limit_buckets where full_at < now()');
  return rowCount;
}

/** Removes the bucket of `key`: it is full again. */
export async function dropBucket(knex: Knex, key: string): Promise<void> {
  await knex.raw('delete from rate_limit_buckets where key = ?', [key]);
}
