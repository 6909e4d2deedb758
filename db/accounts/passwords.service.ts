/** Users' passwords: set by an operator (admin command line, first start) or changed by the user. Only scrypt hashes are stored. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, InvalidCredentialsError, NotFoundError } from '../../lib/errors.js';
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from '../../lib/passwords.js';
import { revokeSessions } from './sessions.service.js';
import { User } from './user.entity.js';

function checkStrength(password: string, field: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new BadRequestError(`The password must have at least ${MIN_PASSWORD_LENGTH} characters`, field);
  }
}

/** The one user of `email` (in `accountId` when given; an email of several accounts needs it). */
async function userByEmail(em: EntityManager, email: string, accountId?: number): Promise<User> {
  const normalized = email.trim().toLowerCase();
  const users = await em.find(User, { email: normalized, ...(accountId !== undefined && { account: accountId }) }, { orderBy: { id: 'asc' } });
  if (users.length === 0) throw new NotFoundError(`No user has the email ${normalized}${accountId !== undefined ? ` in account ${accountId}` : ''}`);
  if (users.length > 1) {
    const accounts = users.map((u) => u.account.id).join(', ');
    throw new ConflictError(`The email ${normalized} has users in accounts ${accounts}: name one with --account`);
  }
  return users[0]!;
}

/**
 * Sets the password of the user of `email` (in `accountId` when given; an email of several accounts needs it) and
 * signs them out everywhere: a reset password ends the sessions the old one opened.
 */
export async function setPassword(em: EntityManager, email: string, password: string, accountId?: number): Promise<User> {
  checkStrength(password, 'password');
  const user = await userByEmail(em, email, accountId);
  await setUserPassword(em, user.id, password);
  return user;
}

/** Sets the name shown beside the user's operator messages; an empty one goes back to the email's part before @. */
export async function setUserName(em: EntityManager, email: string, name: string, accountId?: number): Promise<User> {
  const user = await userByEmail(em, email, accountId);
  user.name = name.trim() || null;
  await em.flush();
  return user;
}

/** Sets a user's password (hashed) and revokes their sessions, in one transaction. */
export async function setUserPassword(em: EntityManager, userId: number, password: string): Promise<void> {
  checkStrength(password, 'password');
  const hash = await hashPassword(password);
  await em.transactional(async (tx) => {
    const updated = await tx.nativeUpdate(User, { id: userId }, { passwordHash: hash });
    if (!updated) throw new NotFoundError(`User ${userId} not found`);
    await revokeSessions(tx, userId);
  });
}

/**
 * The user changes their own password, proving the current one (a wrong one is a 403 `invalid_credentials`); every
 * other session of theirs is revoked, the one the change came from (`keepSessionId`) stays.
 */
export async function changePassword(
  em: EntityManager,
  userId: number,
  change: { currentPassword: string; newPassword: string },
  keepSessionId: string | null,
): Promise<void> {
  checkStrength(change.newPassword, 'newPassword');
  const [row] = await em.getKnex().select<{ password_hash: string | null }[]>('password_hash').from('users').where({ id: userId });
  if (!row?.password_hash || !(await verifyPassword(change.currentPassword, row.password_hash))) {
    throw new InvalidCredentialsError('The current password is wrong', 403);
  }
  const hash = await hashPassword(change.newPassword);
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(User, { id: userId }, { passwordHash: hash });
    await revokeSessions(tx, userId, keepSessionId);
  });
}
