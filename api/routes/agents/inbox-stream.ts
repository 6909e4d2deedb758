/**
 * The server-sent event stream of an account's inbox, as one user sees it: `conversation` with the inbox
 * conversation (unread counts the caller's) each time the process's feed says one of the account's conversations has
 * news (api/conversation-feed.ts), `resync` when the client should reload its list (once the feed listens, and after
 * the feed's connection came back), and keep-alive comments. News arriving while a read runs is read right after it,
 * once per conversation. A viewer's presence lapses without any write: the stream re-reads a conversation it sent with
 * viewers when the first of them lapses, so the client sees them go.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { readInboxConversations } from '../../../db/agents/inbox.service.js';
import type { ConversationFeed } from '../../conversation-feed.js';

const RESYNC = 'event: resync\ndata: {}\n\n';

export function inboxStream(feed: ConversationFeed, em: EntityManager, accountId: number, userId: number): Readable {
  const out = new PassThrough();
  const pending = new Set<string>();
  const lapses = new Map<string, NodeJS.Timeout>();
  let closed = false;
  let reading = false;
  const read = async (): Promise<void> => {
    if (reading) return;
    reading = true;
    try {
      while (pending.size && !closed) {
        const ids = [...pending];
        pending.clear();
        for (const { conversation, presenceEndsAt } of await readInboxConversations(em.fork(), accountId, userId, ids)) {
          if (closed) return;
          out.write(`event: conversation\ndata: ${JSON.stringify(conversation)}\n\n`);
          clearTimeout(lapses.get(conversation.id));
          lapses.delete(conversation.id);
          if (presenceEndsAt) {
            const timer = setTimeout(() => wake(conversation.id), Math.max(0, presenceEndsAt.getTime() - Date.now()) + 50);
            lapses.set(conversation.id, timer.unref());
          }
        }
      }
    } catch (error) {
      // The client reconnects and reloads.
      finish();
      out.destroy(error as Error);
    } finally {
      reading = false;
    }
  };
  const wake = (conversationId: string | null) => {
    if (closed) return;
    if (conversationId === null) {
      out.write(RESYNC);
      return;
    }
    pending.add(conversationId);
    void read();
  };
  const unsubscribe = feed.subscribeInbox(accountId, {
    wake,
    keepAlive: () => {
      if (!closed) out.write(': keep-alive\n\n');
    },
  });
  const finish = () => {
    closed = true;
    unsubscribe();
    for (const timer of lapses.values()) clearTimeout(timer);
    lapses.clear();
  };
  out.on('close', finish);
  out.write(': connected\n\n');
  // Not yet listening: the feed says resync once it is, so the client's reload sees everything after it.
  if (feed.listening) out.write(RESYNC);
  return out;
}
