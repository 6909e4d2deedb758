/**
 * Authentication and the scope check. Built once; routes only declare `scope: 'U' | 'any'`. A request is
 * authenticated by `Authorization: Bearer <API key>` or, without that header, by the session cookie of a signed-in
 * person (the console), which acts exactly as a USER key of its user. Writes the cookie authenticates must carry the
 * session's `X-CSRF-Token`: a browser sends the cookie with any site's request, but only our own page knows the token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context, Middleware } from 'koa';
import { verifyKey } from '../db/accounts/api-keys.service.js';
import { verifySession } from '../db/accounts/sessions.service.js';
import { CsrfTokenError, ForbiddenError, UnauthorizedError } from '../lib/errors.js';
import { originOf } from './request-origin.js';
import { SESSION_COOKIE, sessionCookie } from './session-cookie.js';

/** `U`: a USER key (or a session) is required; `any`: a USER or a GENERAL key. */
export type Scope = 'U' | 'any';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const sameToken = (given: string, expected: string): boolean =>
  given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));

/** Authenticates by the session cookie; a dead session's cookie is cleared with the 401. */
async function bySession(ctx: Context, em: EntityManager, token: string): Promise<void> {
  const identity = await verifySession(em, token);
  if (!identity) {
    ctx.append('Set-Cookie', sessionCookie(null, originOf(ctx).protocol === 'https'));
    throw new UnauthorizedError('The session has expired or was signed out: sign in again (POST /sessions)');
  }
  if (!SAFE_METHODS.has(ctx.method) && !sameToken(ctx.get('x-csrf-token'), identity.session!.csrfToken)) throw new CsrfTokenError();
  ctx.state.auth = identity;
}

/** Resolves `Authorization: Bearer <key>`, or else the session cookie, to `ctx.state.auth`, or answers 401 `{ code, message }`. */
export function authenticate(getEm: () => EntityManager): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    const em = getEm();
    const cookie = header ? undefined : ctx.cookies.get(SESSION_COOKIE);
    if (cookie) {
      await bySession(ctx, em, cookie);
    } else {
      if (!header) throw new UnauthorizedError('Missing API key: send the header "Authorization: Bearer <API_KEY>"');
      const match = BEARER.exec(header);
      if (!match) throw new UnauthorizedError('Malformed Authorization header: expected "Bearer <API_KEY>"');
      const identity = await verifyKey(em, match[1]!);
      if (!identity) throw new UnauthorizedError('Invalid API key: it is malformed, unknown or revoked');
      ctx.state.auth = identity;
    }
    ctx.state.em = em;
    await next();
  };
}

/** Refuses a GENERAL key on an endpoint that requires a USER key (403 `forbidden`). */
export function requireScope(scope: Scope): Middleware {
  return async (ctx, next) => {
    if (scope === 'U' && ctx.state.auth.kind !== 'USER') {
      throw new ForbiddenError('This endpoint requires a USER key; a GENERAL (account) key was used');
    }
    await next();
  };
}
