/**
 * One `LISTEN` connection to PostgreSQL that stays up: when it drops (PostgreSQL restarted, the connection cut) it is
 * made again a second later, and `onListening` runs each time it is (again) listening, so its owner re-reads whatever
 * a notification may have announced while no connection listened.
 */
import pg from 'pg';

export interface PgListenerOptions {
  databaseUrl: string;
  /** The channel, or channels, listened to on the one connection. */
  channel: string | string[];
  /** `channel`: which of them the notification came on. */
  onNotification: (payload: string, channel: string) => void;
  /** Each time the LISTEN is in place, the first time included. */
  onListening?: () => void;
  log?: (message: string) => void;
  /** Between a dropped connection and the next try; 1 s by default. */
  retryMs?: number;
}

export class PgListener {
  private client?: pg.Client;
  private stopped = false;
  private running?: Promise<void>;
  private retry?: { timer: NodeJS.Timeout; resolve: () => void };

  constructor(private readonly options: PgListenerOptions) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** Whether the LISTEN is in place now. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) {
      clearTimeout(this.retry.timer);
      this.retry.resolve();
    }
    await this.client?.end().catch(() => {});
    await this.running;
  }

  private async loop(): Promise<void> {
    const { databaseUrl, channel, onNotification, onListening, log } = this.options;
    const channels = typeof channel === 'string' ? [channel] : channel;
    while (!this.stopped) {
      const client = new pg.Client({ connectionString: databaseUrl });
      try {
        const closed = new Promise<void>((resolve) => {
          client.on('error', () => resolve());
          client.on('end', () => resolve());
        });
        client.on('notification', (notice) => onNotification(notice.payload ?? '', notice.channel));
        await client.connect();
        await client.query(channels.map((name) => `listen ${name}`).join('; '));
        if (!this.stopped) {
          this.client = client;
          onListening?.();
          await closed;
        }
      } catch (error) {
        log?.(`LISTEN ${channels.join(', ')} failed (${error instanceof Error ? error.message : String(error)}); trying again`);
      } finally {
        this.client = undefined;
      }
      await client.end().catch(() => {});
      if (!this.stopped) {
        await new Promise<void>((resolve) => (this.retry = { timer: setTimeout(resolve, this.options.retryMs ?? 1_000), resolve }));
      }
    }
  }
}
