import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from './account.entity.js';
import { Conversation } from './conversation.entity.js';
import type { Citation, MessageAuthor, MessageMetadata } from '../../lib/runtime/contract.js';

export type { MessageMetadata };

/**
 * One message of a conversation's transcript. Messages are written by activities, which Temporal may run again:
 * `key` names the message by what produced it (the user message's update, the node execution that said it), so a
 * repeated write finds the row instead of adding a second message.
 */
/** A document or web page a reply cites. */
export type MessageCitation = Citation;

export class ConversationMessage {
  id!: string;
  account!: Account;
  conversation!: Conversation;
  key!: string;
  author!: MessageAuthor;
  text!: string;
  turn!: number;
  flowId?: number | null;
  nodeId?: string | null;
  credits: Opt<number> = 0;
  /** The run of the conversation workflow that ran the turn (with `conversation:<id>`, its Temporal execution). */
  temporalRunId?: string | null;
  /** Where a widget visitor wrote it from: the page URL and the browser's user agent (never the address); an operator's id and name. */
  metadata?: MessageMetadata | null;
  /** The knowledge-base documents (id and title) and web pages (url and title) an agent's reply cites, in the order cited. */
  citations?: MessageCitation[] | null;
  createdAt: Opt<Date> = new Date();
}

export const ConversationMessageSchema = new EntitySchema<ConversationMessage>({
  class: ConversationMessage,
  tableName: 'conversation_messages',
  uniques: [{ name: 'conversation_messages_key_unique', properties: ['key'] }],
  indexes: [{ name: 'conversation_messages_conversation_index', properties: ['conversation', 'id'] }],
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    conversation: { kind: 'm:1', entity: () => Conversation, deleteRule: 'cascade' },
    key: { type: 'text' },
    author: { type: 'text' },
    text: { type: 'text' },
    turn: { type: 'integer' },
    flowId: { type: 'integer', nullable: true },
    nodeId: { type: 'text', nullable: true },
    credits: { type: 'double', default: 0 },
    temporalRunId: { type: 'text', nullable: true },
    metadata: { type: 'json', columnType: 'jsonb', nullable: true },
    citations: { type: 'json', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
