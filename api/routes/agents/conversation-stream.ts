/**
 * The server-sent event stream of a conversation's messages: every message after `after` (a message id), then each
 * new one as it is written (turns, SEND_MESSAGE nodes of automations), read every `POLL_MS` by id from the
 * transcript; a comment line keeps idle connections open; `end` once the conversation has ended. A reconnecting
 * client passes the last id it saw (or `Last-Event-ID` semantics through `after`) and misses nothing.
 */
import { PassThrough, type Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { listMessages } from '../../../db/agents/conversations.service.js';
import { Conversation } from '../../../db/agents/conversation.entity.js';
import type { TranscriptMessage } from '../../../lib/runtime/conversation-contract.js';

const POLL_MS = 250;
const KEEP_ALIVE_MS = 15_000;

/** `view`: what a reader sees of each message (the widget's visitor sees less than the account's keys). */
export function messageStream(
  em: EntityManager,
  conversationId: string,
  after?: string,
  view: (message: TranscriptMessage) => unknown = (message) => message,
): Readable {
  const out = new PassThrough();
  let last = after;
  let closed = false;
  let quiet = 0;
  out.on('close', () => (closed = true));
  const tick = async () => {
    if (closed) return;
    try {
      const fresh = em.fork();
      const messages = await listMessages(fresh, conversationId, last);
      for (const message of messages) {
        out.write(`id: ${message.id}\nevent: message\ndata: ${JSON.stringify(view(message))}\n\n`);
        last = message.id;
      }
      quiet = messages.length ? 0 : quiet + POLL_MS;
      if (quiet >= KEEP_ALIVE_MS) {
        out.write(': keep-alive\n\n');
        quiet = 0;
      }
      const conversation = messages.length ? null : await fresh.findOne(Conversation, { id: conversationId }, { fields: ['status'] });
      if (conversation?.status === 'ENDED') {
        out.end('event: end\ndata: {}\n\n');
        return;
      }
    } catch (error) {
      out.destroy(error as Error);
      return;
    }
    setTimeout(() => void tick(), POLL_MS).unref();
  };
  out.write(': connected\n\n');
  void tick();
  return out;
}
