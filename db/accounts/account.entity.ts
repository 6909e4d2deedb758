import { EntitySchema, type Opt } from '@mikro-orm/core';

/** A tenant. Every resource belongs to exactly one account and is invisible to all others. */
export class Account {
  id!: number;
  name!: string;
  /** Short unique slug, returned by `GET /me`. */
  namespace!: string;
  /** Credits left for runs; null: unlimited. A run that starts at zero or below stops with `insufficient_credits`. */
  creditBalance?: number | null;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const AccountSchema = new EntitySchema<Account>({
  class: Account,
  tableName: 'accounts',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    name: { type: 'text' },
    namespace: { type: 'text', unique: true },
    creditBalance: { type: 'double', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
