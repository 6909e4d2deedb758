/**
 * Sessions of signed-in people (the console). The cookie carries a random token; only its SHA-256 hash is stored, so
 * a copy of the database opens no session. A session acts as its user, like a USER key of theirs (api/auth.ts).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { InvalidCredentialsError, NotFoundError } from '../../lib/errors.js';
import { dummyHash, verifyPassword } from '../../lib/passwords.js';
import { mergeAccount, type AccountColumns, type KeyIdentity } from './api-keys.service.js';
import { UserSession } from './user-session.entity.js';
import { User } from './user.entity.js';

/** last_seen_at is refreshed at most this often, so an authenticated request is not a write each time. */
const LAST_SEEN_RESOLUTION_MS = 60_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const MAX_USER_AGENT = 500;

export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The name shown for a user: theirs, else the email's part before @. */
export const displayName = (user: Pick<User, 'email' | 'name'>): string => user.name || user.email.split('@')[0]!;

/** A signed-in session as `POST /sessions` and `GET /sessions/current` answer it. */
export interface SessionView {
  id: string;
  user: { id: number; email: string; name: string; accountId: number };
  csrfToken: string;
  expiresAt: string;
}

/** A session in the user's list (`GET /sessions`): never its token. */
export interface SessionListItem {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  address: string;
  userAgent: string | null;
  current: boolean;
}

export function sessionView(identity: KeyIdentity): SessionView {
  const { user, session, account } = identity;
  if (!user || !session) throw new Error('sessionView needs a session identity');
  return {
    id: session.id,
    user: { id: user.id, email: user.email, name: displayName(user), accountId: account.id },
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt.toISOString(),
  };
}

export interface SignIn {
  email: string;
  password: string;
  /** Narrows an email of users in several accounts to one. */
  accountId?: number;
  /** The client's address and User-Agent, kept with the session for its list. */
  address: string;
  userAgent?: string;
  ttlMs: number;
}

/**
 * Signs in: the user of this email whose password matches (users ordered by id; `accountId` narrows) gets a new
 * session. Answers the session and its cookie token (shown once), or throws `InvalidCredentialsError`, the same for an
 * unknown email and a wrong password; an unknown email is checked against a dummy hash, so the time taken says nothing.
 */
export async function signIn(em: EntityManager, input: SignIn): Promise<{ view: SessionView; token: string }> {
  const email = input.email.trim().toLowerCase();
  const rows = await em
    .getKnex()
    .select<{ id: number; password_hash: string | null }[]>('id', 'password_hash')
    .from('users')
    .where({ email, ...(input.accountId !== undefined && { account_id: input.accountId }) })
    .orderBy('id');
  let matched: number | undefined;
  let checked = false;
  for (const row of rows) {
    if (!row.password_hash) continue;
    checked = true;
    if (await verifyPassword(input.password, row.password_hash)) {
      matched = row.id;
      break;
    }
  }
  if (!checked) await verifyPassword(input.password, await dummyHash());
  if (matched === undefined) throw new InvalidCredentialsError();
  // Expired sessions are removed here, the one place that adds sessions.
  await em.nativeDelete(UserSession, { expiresAt: { $lt: new Date() } });
  const user = await em.findOneOrFail(User, { id: matched }, { populate: ['account'] });
  const token = randomBytes(32).toString('base64url');
  const session = em.create(UserSession, {
    id: randomUUID(),
    user,
    account: user.account,
    tokenHash: hashSessionToken(token),
    csrfToken: randomBytes(32).toString('base64url'),
    expiresAt: new Date(Date.now() + input.ttlMs),
    address: input.address,
    userAgent: input.userAgent?.slice(0, MAX_USER_AGENT) || null,
  });
  await em.persistAndFlush(session);
  const identity: KeyIdentity = {
    keyId: null,
    kind: 'USER',
    account: user.account,
    user,
    session: { id: session.id, csrfToken: session.csrfToken, expiresAt: session.expiresAt },
  };
  return { view: sessionView(identity), token };
}

interface SessionRow extends AccountColumns {
  session_id: string;
  csrf_token: string;
  expires_at: Date;
  last_seen_at: Date;
  user_id: number;
  email: string;
  user_name: string | null;
  user_created_at: Date;
}

/**
 * The identity of a live session (not revoked, not expired) by its cookie token, or null. Runs on every request the
 * cookie authenticates: one indexed query, merged into the entity manager as `verifyKey` does.
 */
export async function verifySession(em: EntityManager, token: string): Promise<KeyIdentity | null> {
  if (!TOKEN.test(token)) return null;
  const [row] = await em.getConnection().execute<SessionRow[]>(
    `select s.id as session_id, s.csrf_token, s.expires_at, s.last_seen_at, a.id as account_id, a.name as account_name,
            a.namespace, a.created_at as account_created_at, a.updated_at as account_updated_at,
            u.id as user_id, u.email, u.name as user_name, u.created_at as user_created_at
       from user_sessions s join users u on u.id = s.user_id join accounts a on a.id = s.account_id
      where s.token_hash = ? and s.revoked_at is null and s.expires_at > now()`,
    [hashSessionToken(token)],
  );
  if (!row) return null;
  const now = Date.now();
  if (now - new Date(row.last_seen_at).getTime() > LAST_SEEN_RESOLUTION_MS) {
    await em.nativeUpdate(UserSession, { id: row.session_id }, { lastSeenAt: new Date(now) });
  }
  const account = mergeAccount(em, row);
  const user = em.merge(User, { id: row.user_id, account, email: row.email, name: row.user_name, createdAt: row.user_created_at });
  return {
    keyId: null,
    kind: 'USER',
    account,
    user,
    session: { id: row.session_id, csrfToken: row.csrf_token, expiresAt: new Date(row.expires_at) },
  };
}

/** The user's live sessions, newest first; `currentId` marks the one the request came with. */
export async function listSessions(em: EntityManager, userId: number, currentId: string | null): Promise<SessionListItem[]> {
  const sessions = await em.find(
    UserSession,
    { user: userId, revokedAt: null, expiresAt: { $gt: new Date() } },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return sessions.map((s) => ({
    id: s.id,
    createdAt: s.createdAt.toISOString(),
    lastSeenAt: s.lastSeenAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    address: s.address,
    userAgent: s.userAgent ?? null,
    current: s.id === currentId,
  }));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A live session of the account (any of its users), or a 404. */
export async function findAccountSession(em: EntityManager, accountId: number, sessionId: string): Promise<UserSession> {
  const session = UUID.test(sessionId)
    ? await em.findOne(UserSession, { id: sessionId, account: accountId, revokedAt: null, expiresAt: { $gt: new Date() } })
    : null;
  if (!session) throw new NotFoundError(`Session ${sessionId} not found`);
  return session;
}

/** Revokes one live session of the user; another user's (or account's) session, or none, is a 404. */
export async function revokeSession(em: EntityManager, userId: number, sessionId: string): Promise<void> {
  const revoked = UUID.test(sessionId)
    ? await em.nativeUpdate(UserSession, { id: sessionId, user: userId, revokedAt: null, expiresAt: { $gt: new Date() } }, { revokedAt: new Date() })
    : 0;
  if (!revoked) throw new NotFoundError(`Session ${sessionId} not found`);
}

/** Revokes every live session of the user but `exceptId` (sign out everywhere); answers how many. */
export async function revokeSessions(em: EntityManager, userId: number, exceptId?: string | null): Promise<number> {
  return em.nativeUpdate(UserSession, { user: userId, revokedAt: null, ...(exceptId && { id: { $ne: exceptId } }) }, { revokedAt: new Date() });
}
