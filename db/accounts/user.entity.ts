import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from './account.entity.js';

/** A person in an account; USER keys and signed-in sessions act as them. */
export class User {
  id!: number;
  account!: Account;
  email!: string;
  /** `scrypt$N$r$p$salt$hash` (lib/passwords.ts); null: the user cannot sign in (API keys only). */
  passwordHash?: string | null;
  /** Shown beside the user's operator messages; null: the email's part before @. */
  name?: string | null;
  createdAt: Opt<Date> = new Date();
}

export const UserSchema = new EntitySchema<User>({
  class: User,
  tableName: 'users',
  uniques: [{ name: 'users_account_email_unique', properties: ['account', 'email'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    email: { type: 'text' },
    passwordHash: { type: 'text', nullable: true, lazy: true },
    name: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
