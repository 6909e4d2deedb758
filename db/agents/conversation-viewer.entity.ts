import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { User } from '../accounts/user.entity.js';
import { Conversation } from './conversation.entity.js';

/**
 * A user of the account and one conversation, as the operator console sees them: whether they have it open now
 * (`presentUntil`, renewed while the console shows it), whether they are typing, and the last message they read
 * (their unread count counts the visitor's messages after it).
 */
export class ConversationViewer {
  conversation!: Conversation;
  user!: User;
  account!: Account;
  /** Present (a viewer) until then; null: not looking. */
  presentUntil?: Date | null;
  typing: Opt<boolean> = false;
  /** The newest message read; never moves backwards. */
  readMessageId?: string | null;
  updatedAt: Opt<Date> = new Date();
}

export const ConversationViewerSchema = new EntitySchema<ConversationViewer>({
  class: ConversationViewer,
  tableName: 'conversation_viewers',
  indexes: [{ name: 'conversation_viewers_user_index', properties: ['user'] }],
  properties: {
    conversation: { kind: 'm:1', entity: () => Conversation, primary: true, deleteRule: 'cascade' },
    user: { kind: 'm:1', entity: () => User, primary: true, deleteRule: 'cascade' },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    presentUntil: { type: 'Date', columnType: 'timestamptz', nullable: true },
    typing: { type: 'boolean', default: false },
    readMessageId: { type: 'bigint', nullable: true },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
