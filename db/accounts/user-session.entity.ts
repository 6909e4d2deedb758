import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from './account.entity.js';
import { User } from './user.entity.js';

/**
 * A signed-in browser (the console): the cookie carries a random token of which only the SHA-256 hash is stored; the
 * CSRF token is what the page sends back on every write. Live while not revoked and before `expiresAt`.
 */
export class UserSession {
  /** UUID. */
  id!: string;
  user!: User;
  account!: Account;
  tokenHash!: string;
  csrfToken!: string;
  createdAt: Opt<Date> = new Date();
  /** Refreshed at most once a minute, so an authenticated request is not a write each time. */
  lastSeenAt: Opt<Date> = new Date();
  expiresAt!: Date;
  revokedAt?: Date | null;
  /** The client's address at sign-in, as the trusted proxies tell it. */
  address!: string;
  userAgent?: string | null;
}

export const UserSessionSchema = new EntitySchema<UserSession>({
  class: UserSession,
  tableName: 'user_sessions',
  indexes: [
    { name: 'user_sessions_user_index', properties: ['user'] },
    { name: 'user_sessions_expires_at_index', properties: ['expiresAt'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true },
    user: { kind: 'm:1', entity: () => User, deleteRule: 'cascade' },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    tokenHash: { type: 'text', unique: true },
    csrfToken: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    lastSeenAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    expiresAt: { type: 'Date', columnType: 'timestamptz' },
    revokedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    address: { type: 'text' },
    userAgent: { type: 'text', nullable: true },
  },
});
