import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from './account.entity.js';

/** A person in an account; USER keys act as them. */
export class User {
  id!: number;
  account!: Account;
  email!: string;
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
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
