/**
 * Verified API keys kept in memory by an API process, so a request costs no key lookup. It is only used while its
 * LISTEN connection is up: PostgreSQL notifies channel `api_identities` whenever a key, its account or its user
 * changes (triggers of the migration `identity_notify`), and every entry is then forgotten. A lookup that a change
 * overtook is not kept, a lost connection forgets everything and keeps nothing until it listens again, and an entry
 * lives at most `ttlMs` whatever happens.
 */
import pg from 'pg';

export const IDENTITY_CHANNEL = 'api_identities';

/** What `KeyCache.lookup` needs from the caller: the stored key row of a hash, or null. */
export type KeyLoader<Row> = () => Promise<Row | null>;

export class KeyCache<Row = unknown> {
  private readonly entries = new Map<string, { row: Row; until: number }>();
  /** Moves on every notification and every loss of the connection: a lookup started before it is not kept. */
  private generation = 0;
  private listening = false;
  private stopped = false;
  private client: pg.Client | null = null;
  private readonly running: Promise<void>;

  constructor(
    private readonly databaseUrl: string,
    private readonly options: { ttlMs?: number; maxEntries?: number; onError?: (error: Error) => void } = {},
  ) {
    this.running = this.listen();
  }

  /** The row of key hash `hash`: the kept one, or `load`'s (kept while nothing changed meanwhile). */
  async lookup(hash: string, load: KeyLoader<Row>): Promise<Row | null> {
    const kept = this.listening ? this.entries.get(hash) : undefined;
    if (kept && kept.until > Date.now()) return kept.row;
    const before = this.generation;
    const row = await load();
    if (row && this.listening && this.generation === before) {
      if (this.entries.size >= (this.options.maxEntries ?? 10_000)) this.entries.delete(this.entries.keys().next().value!);
      this.entries.delete(hash);
      this.entries.set(hash, { row, until: Date.now() + (this.options.ttlMs ?? 60_000) });
    } else if (!row) {
      this.entries.delete(hash);
    }
    return row;
  }

  /** True while changes are heard (and entries are used). */
  get active(): boolean {
    return this.listening;
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => {});
    await this.running;
  }

  private forget(): void {
    this.generation += 1;
    this.entries.clear();
  }

  private async listen(): Promise<void> {
    while (!this.stopped) {
      const client = new pg.Client({ connectionString: this.databaseUrl });
      this.client = client;
      try {
        const closed = new Promise<void>((resolve) => {
          client.on('error', () => resolve());
          client.on('end', () => resolve());
        });
        client.on('notification', () => this.forget());
        await client.connect();
        await client.query(`listen ${IDENTITY_CHANNEL}`);
        // Whatever changed before LISTEN took effect is not heard: start empty.
        this.forget();
        this.listening = !this.stopped;
        await closed;
      } catch (error) {
        if (!this.stopped) this.options.onError?.(error as Error);
      }
      this.listening = false;
      this.forget();
      await client.end().catch(() => {});
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}
