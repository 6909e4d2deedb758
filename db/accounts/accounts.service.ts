import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { Account } from './account.entity.js';
import { User } from './user.entity.js';
import { issueGeneralKey, issueUserKey } from './api-keys.service.js';
import { seedStandardObjects } from '../tables/standard-objects.js';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

export interface AccountView {
  id: number;
  name: string;
  namespace: string;
}

export interface UserView {
  id: number;
  email: string;
}

export interface BootstrapResult {
  account: AccountView;
  user: UserView;
  userKey: string;
  generalKey: string;
}

export function accountView(account: Account): AccountView {
  return { id: account.id, name: account.name, namespace: account.namespace };
}

export function userView(user: User): UserView {
  return { id: user.id, email: user.email };
}

function normalizeEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!EMAIL_PATTERN.test(trimmed)) throw new BadRequestError(`Invalid email address: "${email}"`, 'email');
  return trimmed;
}

/** A URL-safe slug of the name plus a random suffix, so two accounts of the same name get distinct namespaces. */
function newNamespace(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${slug || 'account'}-${randomBytes(3).toString('hex')}`;
}

/** Creates a user in an existing account. Email addresses are unique within an account. */
export async function createUser(em: EntityManager, accountId: number, email: string): Promise<User> {
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw new NotFoundError(`Account ${accountId} not found`);
  const normalized = normalizeEmail(email);
  if (await em.count(User, { account, email: normalized })) {
    throw new ConflictError(`Account ${accountId} already has a user with email ${normalized}`);
  }
  const user = em.create(User, { account, email: normalized });
  await em.persistAndFlush(user);
  return user;
}

/** Creates an account with one user, a USER key and a GENERAL key, all or nothing. */
export async function bootstrapAccount(em: EntityManager, name: string, email: string): Promise<BootstrapResult> {
  const trimmed = name.trim();
  if (!trimmed) throw new BadRequestError('Account name must not be empty', 'name');
  const normalized = normalizeEmail(email);
  return em.transactional(async (tx) => {
    const account = tx.create(Account, { name: trimmed, namespace: newNamespace(trimmed) });
    await tx.persistAndFlush(account);
    const user = await createUser(tx, account.id, normalized);
    const userKey = await issueUserKey(tx, user.id);
    const generalKey = await issueGeneralKey(tx, account.id);
    await seedStandardObjects(tx, account.id);
    return { account: accountView(account), user: userView(user), userKey: userKey.key, generalKey: generalKey.key };
  });
}

/** Number of accounts; the launcher bootstraps a default account when there is none. */
export async function countAccounts(em: EntityManager): Promise<number> {
  return em.count(Account, {});
}

/**
 * The account's credit balance for runs: a number, or null for unlimited (the default). A run that starts at 0 or
 * below stops with `insufficient_credits`; `balance` undefined only reads it.
 */
export async function creditBalance(em: EntityManager, accountId: number, balance?: number | null): Promise<number | null> {
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw new NotFoundError(`Account ${accountId} not found`);
  if (balance !== undefined) {
    account.creditBalance = balance;
    await em.flush();
  }
  return account.creditBalance ?? null;
}
