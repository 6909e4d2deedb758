/**
 * Wakes the outbox dispatchers (DESIGN.md, Events that start runs) after this process committed events. A NOTIFY
 * takes a database-wide lock until its transaction's commit is flushed, so it is sent apart from the writes, never
 * inside them, and coalesced: at most one in flight per process, plus one more for whatever committed meanwhile.
 * Dispatchers also poll, so a lost or skipped wake-up only delays a run, never loses it. `pokeIfWritten` pokes only
 * when events were written: the inserts into `outbox_events` are counted on the knex instance as they are sent.
 */
import type { Knex } from '@mikro-orm/postgresql';

export const OUTBOX_CHANNEL = 'outbox_events';

/**
 * A statement that writes outbox events, whichever code sends it (raw SQL, an entity flush, or an insert inside a
 * larger statement's `with`).
 */
const OUTBOX_INSERT = /\binsert\s+into\s+"?outbox_events"?[\s(]/i;

/**
 * An outbox insert that may write its events already dispatched (nobody listens to them) answers one row whose
 * `outbox_pending` column says whether it wrote any event still to dispatch; it counts only then.
 */
export const OUTBOX_PENDING = 'outbox_pending';
const ANSWERS_PENDING = new RegExp(`\\b${OUTBOX_PENDING}\\b`);

/**
 * Outbox inserts sent through each knex instance (its `query` event: every statement, in transactions too; for those
 * answering `outbox_pending`, its `query-response` event).
 */
const insertsOf = new WeakMap<Knex, { count: number }>();

function outboxInserts(knex: Knex): { count: number } {
  let inserts = insertsOf.get(knex);
  if (!inserts) {
    const counter = { count: 0 };
    knex.on('query', (query: { sql?: string }) => {
      if (query.sql && OUTBOX_INSERT.test(query.sql) && !ANSWERS_PENDING.test(query.sql)) counter.count += 1;
    });
    knex.on('query-response', (response: { rows?: Record<string, unknown>[] } | undefined, query: { sql?: string }) => {
      if (query?.sql && ANSWERS_PENDING.test(query.sql) && response?.rows?.some((row) => row[OUTBOX_PENDING] === true)) counter.count += 1;
    });
    insertsOf.set(knex, (inserts = counter));
  }
  return inserts;
}

export class OutboxNotifier {
  private sending = false;
  private again = false;
  private readonly inserts: { count: number };

  constructor(
    private readonly knex: Knex,
    private readonly onError: (error: Error) => void = () => {},
  ) {
    this.inserts = outboxInserts(knex);
  }

  /** How many outbox inserts this process has sent so far, for `pokeIfWritten`. */
  mark(): number {
    return this.inserts.count;
  }

  /**
   * Pokes when this process has sent outbox inserts since `mark` (taken before the caller's own writes, so its
   * committed events are among them; another caller's make at most one NOTIFY more). Work that wrote no event wakes
   * no dispatcher: each NOTIFY costs every dispatcher a pass over the outbox.
   */
  pokeIfWritten(mark: number): void {
    if (this.inserts.count > mark) this.poke();
  }

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
