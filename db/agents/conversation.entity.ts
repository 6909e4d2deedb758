import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { Agent } from './agent.entity.js';
import { User } from '../accounts/user.entity.js';

/** HANDED_OFF: a person of the account has the conversation (`handoff_to_human`); the agent is silent until resumed. */
export type ConversationStatus = 'ACTIVE' | 'HANDED_OFF' | 'ENDED';

/** What a user said of a conversation (`POST .../feedback`). */
export interface ConversationFeedback {
  rating: number | null;
  comment: string | null;
}

/**
 * A conversation of an agent on a channel. Its state between turns lives in its Temporal workflow
 * (`conversation:<id>`); this row and its messages are the transcript and the figures analytics read.
 */
export class Conversation {
  /** UUID. */
  id!: string;
  account!: Account;
  agent!: Agent;
  channel!: string;
  status: Opt<ConversationStatus> = 'ACTIVE';
  /** User turns answered (the greeting is not one). */
  turns: Opt<number> = 0;
  messageCount: Opt<number> = 0;
  creditsUsed: Opt<number> = 0;
  /** Times the conversation was handed to a person. */
  handoffs: Opt<number> = 0;
  feedback?: ConversationFeedback | null;
  /** Who ended it: USER (the end endpoint), AGENT (a flow, the `end_conversation` tool), or EXPIRED. */
  endReason?: string | null;
  /** The identified widget visitor (a verified `userId`): their conversation resumes on any device. */
  visitorId?: string | null;
  /** Name and email of an identified visitor: the built-ins `contact_name`, `contact_email`. */
  contactName?: string | null;
  contactEmail?: string | null;
  /**
   * A conversation on a messaging network (WhatsApp, Messenger, Instagram): the number/page/account id it came
   * through (the agent replies from it) and the person's id on the network (the replies' recipient). One open
   * conversation per agent, channel, network account and person.
   */
  networkAccountId?: string | null;
  networkUserId?: string | null;
  /** When it was last handed to a person (the inbox's waiting order; meaningful while HANDED_OFF). */
  waitingSince?: Date | null;
  /**
   * The user answering it in the console (a claim): the first to take it over holds it, others may take it over
   * explicitly; resume and end clear it.
   */
  claimedBy?: User | null;
  claimedAt?: Date | null;
  startedAt: Opt<Date> = new Date();
  lastMessageAt: Opt<Date> = new Date();
  endedAt?: Date | null;
}

export const ConversationSchema = new EntitySchema<Conversation>({
  class: Conversation,
  tableName: 'conversations',
  indexes: [
    { name: 'conversations_agent_started_index', properties: ['agent', 'startedAt'] },
    { name: 'conversations_agent_visitor_index', properties: ['agent', 'visitorId'] },
    {
      name: 'conversations_account_last_message_index',
      expression: 'create index "conversations_account_last_message_index" on "conversations" ("account_id", "last_message_at" desc, "id" desc)',
    },
    {
      name: 'conversations_account_waiting_index',
      expression:
        'create index "conversations_account_waiting_index" on "conversations" ("account_id", "waiting_since" desc, "id" desc) where "status" = \'HANDED_OFF\'',
    },
    {
      name: 'conversations_network_user_open_unique',
      expression:
        'create unique index "conversations_network_user_open_unique" on "conversations" ("agent_id", "channel", "network_account_id", "network_user_id") where "network_user_id" is not null and "status" <> \'ENDED\'',
    },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    agent: { kind: 'm:1', entity: () => Agent, deleteRule: 'cascade' },
    channel: { type: 'text' },
    status: { type: 'text', default: 'ACTIVE' },
    turns: { type: 'integer', default: 0 },
    messageCount: { type: 'integer', default: 0 },
    creditsUsed: { type: 'double', default: 0 },
    handoffs: { type: 'integer', default: 0 },
    feedback: { type: 'json', columnType: 'jsonb', nullable: true },
    endReason: { type: 'text', nullable: true },
    visitorId: { type: 'text', nullable: true },
    contactName: { type: 'text', nullable: true },
    contactEmail: { type: 'text', nullable: true },
    networkAccountId: { type: 'text', nullable: true },
    networkUserId: { type: 'text', nullable: true },
    waitingSince: { type: 'Date', columnType: 'timestamptz', nullable: true },
    claimedBy: { kind: 'm:1', entity: () => User, nullable: true, deleteRule: 'set null' },
    claimedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    startedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    lastMessageAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    endedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});
