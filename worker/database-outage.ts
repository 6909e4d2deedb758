/**
 * Activities through a PostgreSQL outage. An activity that fails because the database is unavailable (down,
 * restarting, recovering: `databaseUnavailable`) waits for it to answer again and then runs again, as Temporal's
 * retry would (activities are retry-safe), within its attempt's start-to-close time and heartbeating when it is not
 * local. A restart of PostgreSQL shorter than that time (30 s for local activities) costs a run no attempt; a longer
 * outage fails the attempt as before, and Temporal retries it.
 */
import type { Context } from '@temporalio/activity';
import type { Knex } from '@mikro-orm/postgresql';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { databaseUnavailable } from '../db/database.js';

const POLL_MS = 1_000;
/** Time kept to report the failure before the attempt's start-to-close timeout. */
const MARGIN_MS = 2_000;

export function waitOutDatabaseOutages(knex: Knex): ActivityInterceptorsFactory {
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const deadline = Date.now() + ctx.info.startToCloseTimeoutMs - MARGIN_MS;
        for (;;) {
          try {
            return await next(input);
          } catch (error) {
            if (!databaseUnavailable(error) || !(await databaseAnswers(knex, ctx, deadline))) throw error;
          }
        }
      },
    },
  });
}

/** Polls the database until it answers (true), or `deadline` comes or the activity is cancelled (false). */
async function databaseAnswers(knex: Knex, ctx: Context, deadline: number): Promise<boolean> {
  const answers = () =>
    knex.raw('select 1').then(
      () => true,
      () => false,
    );
  try {
    while (Date.now() + POLL_MS < deadline) {
      if (!ctx.info.isLocal) ctx.heartbeat();
      await ctx.sleep(POLL_MS);
      if (await answers()) return true;
    }
  } catch {
    // Cancelled: the activity's own failure is reported at once.
  }
  return false;
}
