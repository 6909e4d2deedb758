/**
 * Bookkeeping activities are retried until the database answers (workflows/until-the-database-answers.ts). A failure that is not
 * the database being away (`databaseUnavailable`) still fails the step after `attempts` attempts, as the bounded
 * retry policy it had before did, so a step that cannot succeed (its conversation deleted) does not retry forever.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { databaseUnavailable } from '../db/database.js';

export function failsAfter<A extends unknown[], R>(attempts: number, step: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await step(...args);
    } catch (error) {
      if (databaseUnavailable(error) || error instanceof ApplicationFailure || attemptOf() < attempts) throw error;
      const cause = error instanceof Error ? error : new Error(String(error));
      throw ApplicationFailure.create({ message: cause.message, type: cause.name, nonRetryable: true, cause });
    }
  };
}

/** The attempt of the running activity (Infinity when called outside one, as tests do: nothing to retry then). */
function attemptOf(): number {
  try {
    return Context.current().info.attempt;
  } catch {
    return Infinity;
  }
}
