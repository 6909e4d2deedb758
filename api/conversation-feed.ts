/**
 * The open conversation and inbox streams of this API process and the one `LISTEN` connection that wakes them all
 * (DESIGN.md, Many API processes). Writers never call this: triggers send, from the writing transaction,
 * - on `agentry_conversations`: `m<conversation id>` (a message written), `s<conversation id>:<message id>` (its
 *   delivery status moved) or `e<conversation id>` (ended), waking that conversation's streams;
 * - on `agentry_inbox`: `<account id>:<conversation id>` (a message, a start, a change of status, claim, wait, or of
 *   a user's presence, typing or read mark), waking the account's inbox streams;
 * so every writer in every process (turns, SEND_MESSAGE, operator messages, handoffs, claims, channel statuses) wakes
 * every API process's streams at its commit. An idle stream costs no query; a keep-alive comment every 15 s keeps its
 * connection open through proxies. Each time the listener is (again) in place, every stream re-reads (an inbox stream
 * tells its client to reload), so nothing written while no connection listened is missed. The connection is made with
 * the first stream and closed a while after the last one.
 */
import { PgListener } from '../db/pg-listener.js';
import { conversationStreamsOpen, inboxStreamsOpen } from '../lib/metrics.js';

export const CONVERSATION_NOTICES = 'agentry_conversations';
export const INBOX_NOTICES = 'agentry_inbox';

/**
 * `message`: a message was written; `status`: the delivery status of message `messageId` moved; `end`: the
 * conversation ended; `resync`: anything may have happened.
 */
export type FeedNotice = 'message' | 'status' | 'end' | 'resync';

export interface FeedSubscriber {
  /** `messageId`: the message of a `status` notice. */
  wake(notice: FeedNotice, messageId?: string): void;
  keepAlive(): void;
}

/** An inbox stream of one account. */
export interface InboxSubscriber {
  /** `conversationId` has news; null: anything may have happened (reload). */
  wake(conversationId: string | null): void;
  keepAlive(): void;
}

export interface ConversationFeedOptions {
  keepAliveMs?: number;
  /** How long the LISTEN connection stays after the last stream closed. */
  lingerMs?: number;
  log?: (message: string) => void;
}

export class ConversationFeed {
  private readonly streams = new Map<string, Set<FeedSubscriber>>();
  private readonly inboxes = new Map<number, Set<InboxSubscriber>>();
  private listener?: PgListener;
  private keepAlive?: NodeJS.Timeout;
  private linger?: NodeJS.Timeout;
  private open = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly options: ConversationFeedOptions = {},
  ) {}

  /** Adds a stream of `conversationId`; answers the function that removes it. */
  subscribe(conversationId: string, subscriber: FeedSubscriber): () => void {
    return this.add(this.streams, conversationId, subscriber, conversationStreamsOpen);
  }

  /** Adds an inbox stream of account `accountId`; answers the function that removes it. */
  subscribeInbox(accountId: number, subscriber: InboxSubscriber): () => void {
    return this.add(this.inboxes, accountId, subscriber, inboxStreamsOpen);
  }

  /** Whether notices are being listened for now (false before the first stream, and while reconnecting). */
  get listening(): boolean {
    return this.listener?.listening ?? false;
  }

  async close(): Promise<void> {
    clearTimeout(this.linger);
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.stop();
  }

  private add<K, S>(map: Map<K, Set<S>>, key: K, subscriber: S, gauge: { inc(): void; dec(): void }): () => void {
    const set = map.get(key) ?? new Set();
    map.set(key, set);
    set.add(subscriber);
    this.open += 1;
    gauge.inc();
    this.ensureListening();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set.delete(subscriber);
      if (!set.size) map.delete(key);
      this.open -= 1;
      gauge.dec();
      if (!this.open) this.idle();
    };
  }

  private ensureListening(): void {
    clearTimeout(this.linger);
    this.linger = undefined;
    this.keepAlive ??= setInterval(() => this.each((s) => s.keepAlive()), this.options.keepAliveMs ?? 15_000).unref();
    if (this.listener) return;
    this.listener = new PgListener({
      databaseUrl: this.databaseUrl,
      channel: [CONVERSATION_NOTICES, INBOX_NOTICES],
      onNotification: (payload, channel) => (channel === INBOX_NOTICES ? this.notifyInbox(payload) : this.notify(payload)),
      onListening: () => {
        for (const set of this.streams.values()) for (const subscriber of set) subscriber.wake('resync');
        for (const set of this.inboxes.values()) for (const subscriber of set) subscriber.wake(null);
      },
      log: (message) => this.options.log?.(`conversation streams: ${message}; streams re-read once it is back`),
    });
    this.listener.start();
  }

  private idle(): void {
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    this.linger = setTimeout(() => {
      if (!this.open) void this.close();
    }, this.options.lingerMs ?? 60_000).unref();
  }

  private notify(payload: string): void {
    const [conversationId, messageId] = payload.slice(1).split(':');
    const subscribers = this.streams.get(conversationId!);
    if (!subscribers) return;
    const notice: FeedNotice = payload[0] === 'e' ? 'end' : payload[0] === 's' ? 'status' : 'message';
    for (const subscriber of subscribers) subscriber.wake(notice, messageId);
  }

  private notifyInbox(payload: string): void {
    const [accountId, conversationId] = payload.split(':');
    const subscribers = this.inboxes.get(Number(accountId));
    if (!subscribers || !conversationId) return;
    for (const subscriber of subscribers) subscriber.wake(conversationId);
  }

  private each(action: (subscriber: { keepAlive(): void }) => void): void {
    for (const set of this.streams.values()) for (const subscriber of set) action(subscriber);
    for (const set of this.inboxes.values()) for (const subscriber of set) action(subscriber);
  }
}
