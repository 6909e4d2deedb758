import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

/** A page of a social account (a Facebook page, an Instagram business profile). */
export interface SocialPage {
  id: string;
  name: string;
}

/** A social-network account connected to an account, with the pages it manages. */
export class SocialAccount {
  id!: number;
  account!: Account;
  /** Uppercase platform code: INSTAGRAM, FACEBOOK, … */
  platform!: string;
  name!: string;
  /** The platform's id of the account. */
  externalId!: string;
  pages: Opt<SocialPage[]> = [];
  /**
   * Messaging through Meta's webhooks and Send API (admin CLI `channel-settings`): the page id (Messenger) or
   * Instagram account id the messages are for (`externalId` or one of `pages`), the agent that answers them, the
   * SHA-256 of the webhook verify token, the Meta app's secret that signs deliveries and the access token of the Send
   * API (both sealed with SETTINGS_ENCRYPTION_KEY), and the Send API's base URL (null: Meta's Graph API).
   */
  messagingId?: string | null;
  assistantId?: string | null;
  webhookVerifyTokenHash?: string | null;
  appSecretSealed?: string | null;
  appSecretHint?: string | null;
  accessTokenSealed?: string | null;
  accessTokenHint?: string | null;
  sendApiUrl?: string | null;
  createdAt: Opt<Date> = new Date();
}

export const SocialAccountSchema = new EntitySchema<SocialAccount>({
  class: SocialAccount,
  tableName: 'social_accounts',
  indexes: [
    { name: 'social_accounts_account_index', properties: ['account'] },
    {
      name: 'social_accounts_messaging_unique',
      expression:
        'create unique index "social_accounts_messaging_unique" on "social_accounts" ("platform", "messaging_id") where "messaging_id" is not null',
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    platform: { type: 'text' },
    name: { type: 'text' },
    externalId: { type: 'text' },
    pages: { type: 'json' },
    messagingId: { type: 'text', nullable: true },
    assistantId: { type: 'uuid', nullable: true },
    webhookVerifyTokenHash: { type: 'text', nullable: true },
    appSecretSealed: { type: 'text', nullable: true },
    appSecretHint: { type: 'text', nullable: true },
    accessTokenSealed: { type: 'text', nullable: true },
    accessTokenHint: { type: 'text', nullable: true },
    sendApiUrl: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
