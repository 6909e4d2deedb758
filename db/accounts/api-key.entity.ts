import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from './account.entity.js';
import { User } from './user.entity.js';

export type ApiKeyKind = 'USER' | 'GENERAL';

/** An API key. Only its SHA-256 hash and a short visible prefix are stored; the key itself is shown once. */
export class ApiKey {
  id!: number;
  account!: Account;
  /** Set for USER keys, null for GENERAL keys. */
  user?: User | null;
  kind!: ApiKeyKind;
  prefix!: string;
  keyHash!: string;
  label?: string | null;
  createdAt: Opt<Date> = new Date();
  lastUsedAt?: Date | null;
  revokedAt?: Date | null;
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  class: ApiKey,
  tableName: 'api_keys',
  checks: [
    { name: 'api_keys_kind_check', expression: "kind in ('USER', 'GENERAL')" },
    { name: 'api_keys_user_matches_kind', expression: "(kind = 'USER') = (user_id is not null)" },
  ],
  indexes: [
    { name: 'api_keys_account_index', properties: ['account'] },
    { name: 'api_keys_user_index', properties: ['user'] },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    user: { kind: 'm:1', entity: () => User, nullable: true, deleteRule: 'cascade' },
    kind: { type: 'text' },
    prefix: { type: 'text' },
    keyHash: { type: 'text', unique: true },
    label: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    lastUsedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    revokedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
  },
});
