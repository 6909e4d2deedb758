/**
 * The open conversation streams of this API process and the one `LISTEN` connection that wakes them (DESIGN.md, Many
 * API processes). Writers of messages never call this: a trigger of `conversation_messages` and `conversations`
 * sends `m<conversation id>` (a message written), `s<conversation id>:<message id>` (its delivery status moved) or
 * `e<conversation id>` (ended) on `agentry_conversations` from the writing transaction, so every writer in every
 * process (turns, SEND_MESSAGE, operator messages, handoff notices, channel statuses) wakes every API process's
 * streams of that conversation at its commit. An idle stream costs no query; a keep-alive comment every 15 s keeps
 * its connection open through proxies. Each time the listener is (again) in place, every stream re-reads once, so
 * nothing written while no connection listened is missed. The connection is made with the first stream and closed a
 * while after the last one.
 */
import { PgListener } from '../db/pg-listener.js';
import { conversationStreamsOpen } from '../lib/metrics.js';

export const CONVERSATION_NOTICES = 'agentry_conversations';

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

export interface ConversationFeedOptions {
  keepAliveMs?: number;
  /** How long the LISTEN connection stays after the last stream closed. */
  lingerMs?: number;
  log?: (message: string) => void;
}

export class ConversationFeed {
  private readonly streams = new Map<string, Set<FeedSubscriber>>();
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
    const set = this.streams.get(conversationId) ?? new Set();
    this.streams.set(conversationId, set);
    set.add(subscriber);
    this.open += 1;
    conversationStreamsOpen.inc();
    this.ensureListening();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set.delete(subscriber);
      if (!set.size) this.streams.delete(conversationId);
      this.open -= 1;
      conversationStreamsOpen.dec();
      if (!this.open) this.idle();
    };
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

  private ensureListening(): void {
    clearTimeout(this.linger);
    this.linger = undefined;
    this.keepAlive ??= setInterval(() => this.each((s) => s.keepAlive()), this.options.keepAliveMs ?? 15_000).unref();
    if (this.listener) return;
    this.listener = new PgListener({
      databaseUrl: this.databaseUrl,
      channel: CONVERSATION_NOTICES,
      onNotification: (payload) => this.notify(payload),
      onListening: () => this.each((s) => s.wake('resync')),
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

  private each(action: (subscriber: FeedSubscriber) => void): void {
    for (const set of this.streams.values()) for (const subscriber of set) action(subscriber);
  }
}
