import { createHash, randomBytes } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError } from '../../lib/errors.js';
import { Account } from './account.entity.js';
import { ApiKey, type ApiKeyKind } from './api-key.entity.js';
import { User } from './user.entity.js';

/** Live USER keys one user may hold at a time (SPEC.md, Limits). */
export const MAX_USER_KEYS = 5;

const KIND_TAG: Record<ApiKeyKind, string> = { USER: 'usr', GENERAL: 'gen' };
const KEY_PATTERN = /^agy_(usr|gen)_[A-Za-z0-9_-]{43}$/;
const PREFIX_LENGTH = 12;
/** last_used_at is refreshed at most this often, so verifying a key is not a write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** True when the string has the shape of an agentry key; anything else is refused without a lookup. */
export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export interface IssuedKey {
  id: number;
  kind: ApiKeyKind;
  prefix: string;
  /** The key itself: returned once, never stored. */
  key: string;
}

export interface KeyListItem {
  id: number;
  kind: ApiKeyKind;
  prefix: string;
  label: string | null;
  userId: number | null;
  createdAt: string;
  lastUsedAt: string | null;
}

/** The signed-in session a request came with (the console's cookie), as the API needs it. */
export interface SessionInfo {
  id: string;
  csrfToken: string;
  expiresAt: Date;
}

/**
 * Who a verified key or session acts as. A session acts exactly as a USER key of its user: `kind` USER, `user` set,
 * `keyId` null and `session` set.
 */
export interface KeyIdentity {
  keyId: number | null;
  kind: ApiKeyKind;
  account: Account;
  user: User | null;
  session: SessionInfo | null;
}

function toListItem(k: ApiKey): KeyListItem {
  return {
    id: k.id,
    kind: k.kind,
    prefix: k.prefix,
    label: k.label ?? null,
    userId: k.user ? k.user.id : null,
    createdAt: k.createdAt.toISOString(),
    lastUsedAt: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
  };
}

async function createKey(em: EntityManager, account: Account, user: User | null, kind: ApiKeyKind, label?: string): Promise<IssuedKey> {
  const key = `agy_${KIND_TAG[kind]}_${randomBytes(32).toString('base64url')}`;
  const apiKey = em.create(ApiKey, {
    account,
    user,
    kind,
    prefix: key.slice(0, PREFIX_LENGTH),
    keyHash: hashKey(key),
    label: label ?? null,
    createdAt: new Date(),
  });
  await em.persistAndFlush(apiKey);
  return { id: apiKey.id, kind, prefix: apiKey.prefix, key };
}

/** Issues a USER key; refuses a sixth live key of the same user. Call inside a transaction. */
export async function issueUserKey(em: EntityManager, userId: number, label?: string): Promise<IssuedKey> {
  // Lock the user row so two concurrent issues cannot both pass the limit check.
  const user = await em.findOne(User, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!user) throw new NotFoundError(`User ${userId} not found`);
  const live = await em.count(ApiKey, { user, revokedAt: null });
  if (live >= MAX_USER_KEYS) {
    throw new ConflictError(`User ${userId} already holds ${MAX_USER_KEYS} live USER keys, the maximum; revoke one before issuing another`);
  }
  return createKey(em, user.account, user, 'USER', label);
}

/** Issues a GENERAL (account-wide) key. */
export async function issueGeneralKey(em: EntityManager, accountId: number, label?: string): Promise<IssuedKey> {
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw new NotFoundError(`Account ${accountId} not found`);
  return createKey(em, account, null, 'GENERAL', label);
}

/** Live keys of an account, newest first. Never returns a key or its hash. */
export async function listKeys(em: EntityManager, accountId: number): Promise<KeyListItem[]> {
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw new NotFoundError(`Account ${accountId} not found`);
  const keys = await em.find(ApiKey, { account, revokedAt: null }, { orderBy: { id: 'desc' } });
  return keys.map(toListItem);
}

/** Revokes a live key by id or by its visible prefix. */
export async function revokeKey(em: EntityManager, idOrPrefix: number | string): Promise<KeyListItem> {
  const where = typeof idOrPrefix === 'number' ? { id: idOrPrefix } : { prefix: idOrPrefix };
  const matches = await em.find(ApiKey, { ...where, revokedAt: null });
  if (matches.length === 0) throw new NotFoundError(`No live key matches ${idOrPrefix}`);
  if (matches.length > 1) throw new ConflictError(`Several live keys match ${idOrPrefix}; revoke by id`);
  const key = matches[0]!;
  key.revokedAt = new Date();
  await em.flush();
  return toListItem(key);
}

/** The account's columns of an identity query (a key's, a session's), selected under these names. */
export interface AccountColumns {
  account_id: number;
  account_name: string;
  namespace: string;
  account_created_at: Date;
  account_updated_at: Date;
}

/** The account of an identity query's row, merged into `em` (no second round trip). */
export function mergeAccount(em: EntityManager, row: AccountColumns): Account {
  return em.merge(Account, {
    id: row.account_id,
    name: row.account_name,
    namespace: row.namespace,
    createdAt: row.account_created_at,
    updatedAt: row.account_updated_at,
  });
}

interface KeyRow extends AccountColumns {
  key_id: number;
  kind: ApiKeyKind;
  last_used_at: Date | null;
  user_id: number | null;
  email: string | null;
  user_created_at: Date | null;
}

/**
 * Resolves a presented key to its identity, or null when it is unknown or revoked. Runs on every request, so it
 * is one indexed query whose row is merged into the entity manager without a second round trip.
 */
export async function verifyKey(em: EntityManager, key: string): Promise<KeyIdentity | null> {
  if (!isWellFormedKey(key)) return null;
  const [row] = await em.getConnection().execute<KeyRow[]>(
    `select k.id as key_id, k.kind, k.last_used_at, a.id as account_id, a.name as account_name, a.namespace,
            a.created_at as account_created_at, a.updated_at as account_updated_at,
            u.id as user_id, u.email, u.created_at as user_created_at
       from api_keys k join accounts a on a.id = k.account_id left join users u on u.id = k.user_id
      where k.key_hash = ? and k.revoked_at is null`,
    [hashKey(key)],
  );
  if (!row) return null;
  const now = Date.now();
  if (!row.last_used_at || now - new Date(row.last_used_at).getTime() > LAST_USED_RESOLUTION_MS) {
    await em.nativeUpdate(ApiKey, { id: row.key_id }, { lastUsedAt: new Date(now) });
  }
  const account = mergeAccount(em, row);
  const user = row.user_id === null ? null : em.merge(User, { id: row.user_id, account, email: row.email!, createdAt: row.user_created_at! });
  return { keyId: row.key_id, kind: row.kind, account, user, session: null };
}
