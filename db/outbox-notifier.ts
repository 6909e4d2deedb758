/**
 * Wakes the outbox dispatchers (DESIGN.md, Events that start runs) after this process committed events. A NOTIFY
 * takes a database-wide lock until its transaction's commit is flushed, so it is sent apart from the writes, never
 * inside them, and coalesced: at most one in flight per process, plus one more for whatever committed meanwhile.
 * Dispatchers also poll, so a lost or skipped wake-up only delays a run, never loses it.
 */
import type { Knex } from '@mikro-orm/postgresql';

export const OUTBOX_CHANNEL = 'outbox_events';

export class OutboxNotifier {
  private sending = false;
  private again = false;

  constructor(
    private readonly knex: Knex,
    private readonly onError: (error: Error) => void = () => {},
  ) {}

  /** Asks the dispatchers to look at the outbox soon; returns at once. */
  poke(): void {
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = true;
    void this.send();
  }

  private async send(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.knex.raw(`select pg_notify(?, '')`, [OUTBOX_CHANNEL]);
      } catch (error) {
        this.onError(error as Error);
      }
    } while (this.again);
    this.sending = false;
  }
}
