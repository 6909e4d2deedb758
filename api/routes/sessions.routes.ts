/**
 * People sign in (the console): sessions held in a cookie, listed and revoked by their user, and the user's password.
 * A session authenticates every other route as its user (api/auth.ts).
 */
import type { KeyIdentity } from '../../db/accounts/api-keys.service.js';
import { changePassword } from '../../db/accounts/passwords.service.js';
import { findAccountSession, listSessions, revokeSession, revokeSessions, sessionView, signIn } from '../../db/accounts/sessions.service.js';
import { UnauthorizedError } from '../../lib/errors.js';
import { dummyHash } from '../../lib/passwords.js';
import { paginate } from '../pagination.js';
import { Reply, type RouteRegistry } from '../route-registry.js';
import { PageQuerySchema } from '../schemas/common.schema.js';
import { PasswordChangeSchema, SessionIdParamsSchema, SessionPageSchema, SessionSchema, SignInSchema } from '../schemas/sessions.schema.js';
import { sessionCookie } from '../session-cookie.js';
import type { SignInLimits } from '../sign-in-limits.js';

const tag = 'Sessions';
const NO_STORE = { 'Cache-Control': 'no-store' };

export interface SessionRouteDeps {
  limits: SignInLimits;
  /** How long a new session lives. */
  ttlMs: number;
}

interface SignInBody {
  email: string;
  password: string;
  accountId?: number;
}

/** The request's session, or a 401 when it came with an API key instead. */
function currentOf(auth: KeyIdentity): NonNullable<KeyIdentity['session']> {
  if (!auth.session) throw new UnauthorizedError('No session: this request came with an API key; sign in with POST /sessions');
  return auth.session;
}

const isHttps = (selfOrigin: string): boolean => selfOrigin.startsWith('https:');

export function sessionRoutes(api: RouteRegistry, deps: SessionRouteDeps): void {
  // Made now, so that the first unknown email is not told apart by the time making it takes.
  void dummyHash();
  // Another account's session answers 404 before anything else is looked at; another user's is the handler's 404.
  api.resource<{ sessionId: string }>('/sessions/:sessionId', (em, accountId, params) => findAccountSession(em, accountId, params.sessionId));
  const limited = {
    429: { description: 'Too many sign-ins from this address or of this email (`rate_limited`), or the email is locked (`sign_in_locked`)' },
  };
  api.add<SignInBody>({
    method: 'post',
    operationId: 'createSession',
    path: '/sessions',
    scope: 'public',
    tag,
    summary:
      'Signs in with email and password: answers the session with its CSRF token and sets the HttpOnly cookie that authenticates the other routes',
    body: SignInSchema,
    status: 201,
    responses: {
      201: { description: 'Signed in; the cookie agentry_session is set', schema: SessionSchema },
      401: { description: 'Wrong email or password (`invalid_credentials`), the same answer for both' },
      ...limited,
    },
    handler: async ({ body, em, headers, clientAddress, selfOrigin }) => {
      await deps.limits.admit(clientAddress, body.email);
      const { view, token } = await signIn(em, { ...body, address: clientAddress, userAgent: headers['user-agent'], ttlMs: deps.ttlMs });
      await deps.limits.succeeded(body.email);
      return new Reply(201, view, { ...NO_STORE, 'Set-Cookie': sessionCookie(token, isHttps(selfOrigin), deps.ttlMs / 1000) });
    },
  });
  api.add({
    method: 'get',
    operationId: 'getCurrentSession',
    path: '/sessions/current',
    scope: 'U',
    tag,
    summary: 'The session the cookie carries, with its CSRF token (the console asks on load); 401 without a live session',
    responses: { 200: { description: 'The session', schema: SessionSchema } },
    handler: ({ auth }) => {
      currentOf(auth);
      return new Reply(200, sessionView(auth), NO_STORE);
    },
  });
  api.add({
    method: 'get',
    operationId: 'listSessions',
    path: '/sessions',
    scope: 'U',
    tag,
    summary: "The caller's user's live sessions, newest first (never their tokens)",
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [session], nextCursor }', schema: SessionPageSchema } },
    handler: async ({ auth, em, query }) =>
      paginate(await listSessions(em, auth.user!.id, auth.session?.id ?? null), query.limit as number, query.cursor as string | undefined),
  });
  api.add({
    method: 'delete',
    operationId: 'deleteCurrentSession',
    path: '/sessions/current',
    scope: 'U',
    tag,
    summary: 'Signs out: revokes the session the cookie carries and clears the cookie',
    status: 204,
    responses: { 204: { description: 'Signed out' } },
    handler: async ({ auth, em, selfOrigin }) => {
      await revokeSession(em, auth.user!.id, currentOf(auth).id);
      return new Reply(204, undefined, { 'Set-Cookie': sessionCookie(null, isHttps(selfOrigin)) });
    },
  });
  api.add<unknown, unknown, { sessionId: string }>({
    method: 'delete',
    operationId: 'deleteSession',
    path: '/sessions/:sessionId',
    scope: 'U',
    tag,
    summary: "Revokes one of the caller's user's sessions (another user's is a 404)",
    params: SessionIdParamsSchema,
    status: 204,
    responses: { 204: { description: 'Revoked' }, 404: { description: 'No live session of this user has this id' } },
    handler: async ({ auth, em, params }) => revokeSession(em, auth.user!.id, params.sessionId),
  });
  api.add({
    method: 'delete',
    operationId: 'deleteSessions',
    path: '/sessions',
    scope: 'U',
    tag,
    summary: "Signs out everywhere: revokes every session of the caller's user, this one included",
    status: 204,
    responses: { 204: { description: 'Every session revoked' } },
    handler: async ({ auth, em, selfOrigin }) => {
      await revokeSessions(em, auth.user!.id);
      return new Reply(204, undefined, auth.session ? { 'Set-Cookie': sessionCookie(null, isHttps(selfOrigin)) } : {});
    },
  });
  api.add<{ currentPassword: string; newPassword: string }>({
    method: 'put',
    operationId: 'updatePassword',
    path: '/me/password',
    scope: 'U',
    tag,
    summary: "Changes the caller's user's password (proving the current one); their other sessions are revoked",
    body: PasswordChangeSchema,
    status: 204,
    responses: {
      204: { description: 'Changed' },
      403: { description: 'The current password is wrong (`invalid_credentials`)' },
      ...limited,
    },
    handler: async ({ auth, em, body, clientAddress }) => {
      const email = auth.user!.email;
      await deps.limits.admit(clientAddress, email);
      await changePassword(em, auth.user!.id, body, auth.session?.id ?? null);
      await deps.limits.succeeded(email);
    },
  });
}
