/**
 * A conversation's updates run one at a time, in the order they arrived: a turn never overlaps another, and an end
 * or a handoff waits for the turn before it. Each update takes a ticket and waits for its number to be served.
 * Workflow code, deterministic: it waits with the function it is given (the workflow's `condition`), so it is
 * unit-tested with plain promises.
 */

/** Resolves once `ready()` holds (the workflow's `condition` without a timeout). */
export type WaitUntil = (ready: () => boolean) => Promise<void>;

export class SerialQueue {
  /** Tickets given out so far. */
  private tickets = 0;
  /** The ticket being served; `tickets` when none is. */
  private serving = 0;

  constructor(private readonly waitUntil: WaitUntil) {}

  /** Whether an update is running or waiting for its turn. */
  busy(): boolean {
    return this.serving !== this.tickets;
  }

  /** Runs `work` after every update that arrived before it; the next one's turn comes when it settles, failed or not. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const ticket = this.tickets++;
    // Waiting only when another update is being served: a condition costs a pass of the SDK's condition checks.
    if (this.serving !== ticket) await this.waitUntil(() => this.serving === ticket);
    try {
      return await work();
    } finally {
      this.serving += 1;
    }
  }
}
