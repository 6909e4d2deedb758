import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from './account.entity.js';

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
  createdAt: Opt<Date> = new Date();
}

export const SocialAccountSchema = new EntitySchema<SocialAccount>({
  class: SocialAccount,
  tableName: 'social_accounts',
  indexes: [{ name: 'social_accounts_account_index', properties: ['account'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    platform: { type: 'text' },
    name: { type: 'text' },
    externalId: { type: 'text' },
    pages: { type: 'json' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
