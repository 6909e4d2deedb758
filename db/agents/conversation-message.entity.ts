import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
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
  /** The version of the flow whose node said it. */
  flowVersion?: number | null;
  nodeId?: string | null;
  credits: Opt<number> = 0;
  /** The run of the conversation workflow that ran the turn (with `conversation:<id>`, its Temporal execution). */
  temporalRunId?: string | null;
  /** Where a widget visitor wrote it from: the page URL and the browser's user agent (never the address); an operator's id and name. */
  metadata?: MessageMetadata | null;
  /** The knowledge-base documents (id and title) and web pages (url and title) an agent's reply cites, in the order cited. */
  citations?: MessageCitation[] | null;
  /**
   * On a messaging network: the network's id of the message (a user's message id, or the id the send API answered for
   * the agent's), and where the agent's message stands: pending (waiting to be sent), sent, delivered, read, failed
   * (`deliveryError` says why).
   */
  externalId?: string | null;
  deliveryStatus?: DeliveryStatus | null;
  deliveryError?: string | null;
  createdAt: Opt<Date> = new Date();
}

export type DeliveryStatus = 'pending' | 'sent' | 'delivered' | 'read' | 'failed';

export const ConversationMessageSchema = new EntitySchema<ConversationMessage>({
  class: ConversationMessage,
  tableName: 'conversation_messages',
  uniques: [{ name: 'conversation_messages_key_unique', properties: ['key'] }],
  indexes: [
    { name: 'conversation_messages_conversation_index', properties: ['conversation', 'id'] },
    {
      name: 'conversation_messages_external_index',
      expression: 'create index "conversation_messages_external_index" on "conversation_messages" ("external_id") where "external_id" is not null',
    },
  ],
  properties: {
    id: { type: 'bigint', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    conversation: { kind: 'm:1', entity: () => Conversation, deleteRule: 'cascade' },
    key: { type: 'text' },
    author: { type: 'text' },
    text: { type: 'text' },
    turn: { type: 'integer' },
    flowId: { type: 'integer', nullable: true },
    flowVersion: { type: 'integer', nullable: true },
    nodeId: { type: 'text', nullable: true },
    credits: { type: 'double', default: 0 },
    temporalRunId: { type: 'text', nullable: true },
    metadata: { type: 'json', columnType: 'jsonb', nullable: true },
    citations: { type: 'json', nullable: true },
    externalId: { type: 'text', nullable: true },
    deliveryStatus: { type: 'text', nullable: true },
    deliveryError: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
