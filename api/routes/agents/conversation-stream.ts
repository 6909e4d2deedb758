/**
 * The server-sent event stream of a conversation's messages: every message after `after` (a message id, or the
 * `Last-Event-ID` a reconnecting EventSource sends), then each new one as it is written, read by id from the
 * transcript only when the process's conversation feed says this conversation has news (api/conversation-feed.ts);
 * `status` with a message already sent whose delivery status moved (no `id:` line, so a reconnect still resumes
 * after the newest message); `end` once the conversation has ended. An idle stream reads nothing; a comment line
 * keeps its connection open.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findMessages, listMessages } from '../../../db/agents/conversations.service.js';
import { Conversation } from '../../../db/agents/conversation.entity.js';
import type { TranscriptMessage } from '../../../lib/runtime/conversation-contract.js';
import type { ConversationFeed } from '../../conversation-feed.js';

/** `after`, else a well-formed `Last-Event-ID` (message ids are decimal). */
export function resumeFrom(after: string | undefined, lastEventId: string | string[] | undefined): string | undefined {
  return after ?? (typeof lastEventId === 'string' && /^\d{1,19}$/.test(lastEventId) ? lastEventId : undefined);
}

/** `view`: what a reader sees of each message (the widget's visitor sees less than the account's keys). */
export function messageStream(
  feed: ConversationFeed,
  em: EntityManager,
  conversationId: string,
  after?: string,
  view: (message: TranscriptMessage) => unknown = (message) => message,
): Readable {
  const out = new PassThrough();
  let last = after;
  let closed = false;
  let reading = false;
  let again = false;
  // The status is read at the start, after an `end` notice and after a resync, not after each message.
  let checkEnd = true;
  // Messages already sent whose delivery status moved since the last read.
  const moved = new Set<string>();
  const finish = (chunk?: string) => {
    closed = true;
    unsubscribe();
    if (chunk) out.end(chunk);
  };
  const read = async (): Promise<void> => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    try {
      do {
        again = false;
        const fresh = em.fork();
        for (const message of await listMessages(fresh, conversationId, last)) {
          if (closed) return;
          out.write(`id: ${message.id}\nevent: message\ndata: ${JSON.stringify(view(message))}\n\n`);
          last = message.id;
        }
        // A moved message not sent yet went out above with its new status.
        const ids = [...moved].filter((id) => last !== undefined && BigInt(id) <= BigInt(last));
        moved.clear();
        if (ids.length) {
          for (const message of await findMessages(fresh, conversationId, ids)) {
            if (closed) return;
            out.write(`event: status\ndata: ${JSON.stringify(view(message))}\n\n`);
          }
        }
        if (checkEnd && !closed) {
          checkEnd = false;
          const conversation = await fresh.findOne(Conversation, { id: conversationId }, { fields: ['status'] });
          if (conversation?.status === 'ENDED') return finish('event: end\ndata: {}\n\n');
        }
      } while (again && !closed);
    } catch (error) {
      // The client reconnects from the last id it saw.
      finish();
      out.destroy(error as Error);
    } finally {
      reading = false;
    }
  };
  const unsubscribe = feed.subscribe(conversationId, {
    wake: (notice, messageId) => {
      if (notice === 'status' && messageId) moved.add(messageId);
      else if (notice !== 'message') checkEnd = true;
      void read();
    },
    keepAlive: () => {
      if (!closed) out.write(': keep-alive\n\n');
    },
  });
  out.on('close', () => finish());
  out.write(': connected\n\n');
  void read();
  return out;
}
