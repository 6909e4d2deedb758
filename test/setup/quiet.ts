/**
 * Waiting for "nothing else happened". A fixed sleep before asserting that no further run, event or call came is
 * either too short on a loaded machine (the assertion passes before the stray run would have shown) or wasted time.
 * `quiet` polls instead: it waits while work is still under way (`busy` probes: outbox events not yet dispatched,
 * runs still open in Temporal) and until the observed value has stayed the same for a settle settling, then answers
 * that value for the test to assert on. Anything that happens before the system is quiet changes the value, so an
 * extra run still fails the assertion; something that never settles fails the wait, naming what it saw last.
 */
import { harness } from './harness.js';

export interface QuietOptions {
  /** How long the value must stay unchanged, with nothing busy, to count as quiet (ms); longer than any timer in play. */
  settleMs?: number;
  /** How long to wait for quiet before failing (ms). */
  timeoutMs?: number;
  /** Work under way: quiet waits (and the settle settling restarts) while any answers a non-zero count or true. */
  busy?: (() => Promise<number | boolean> | number | boolean)[];
  /** What is being watched, for the timeout's message. */
  what?: string;
  intervalMs?: number;
}

/** Polls `probe` until it has answered the same value (deeply) for `settleMs` with nothing `busy`; answers that value. */
export async function quiet<T>(probe: () => Promise<T> | T, options: QuietOptions = {}): Promise<T> {
  const { settleMs = 1_000, timeoutMs = 20_000, busy = [], what = 'the system', intervalMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  /** The settle window under way: the value seen, with nothing busy, and since when. */
  let settling: { seen: string | undefined; since: number } | undefined;
  for (;;) {
    const [value, work] = await Promise.all([probe(), Promise.all(busy.map((b) => b()))]);
    const seen = JSON.stringify(value);
    const now = Date.now();
    if (work.some(Boolean)) settling = undefined;
    else if (!settling || settling.seen !== seen) settling = { seen, since: now };
    else if (now - settling.since >= settleMs) return value;
    if (now > deadline) throw new Error(`${what} was not quiet after ${timeoutMs} ms: last saw ${seen}, busy ${JSON.stringify(work)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Busy probe: the account's outbox events not yet dispatched (parked ones excepted), retries included. */
export function undispatchedEvents(accountId: number, knex = harness().orm.em.getKnex()): () => Promise<number> {
  return async () =>
    Number(
      (
        await knex.raw('select count(*) as n from outbox_events where account_id = ? and dispatched_at is null and dead_lettered_at is null', [
          accountId,
        ])
      ).rows[0].n,
    );
}

/** Busy probe: runAutomation executions still open in Temporal, of an account or of one workflow. */
export function openRuns(of: { accountId: number } | { automationId: number }): () => Promise<number> {
  const which = 'accountId' in of ? `AgentryAccountId = ${Number(of.accountId)}` : `AgentryAutomationId = ${Number(of.automationId)}`;
  return async () => (await harness().env.client.workflow.count(`WorkflowType = 'runAutomation' AND ExecutionStatus = 'Running' AND ${which}`)).count;
}
