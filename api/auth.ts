/**
 * API key authentication and the scope check. Built once; routes only declare `scope: 'U' | 'any'`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Middleware } from 'koa';
import { verifyKey } from '../db/accounts/api-keys.service.js';
import { ForbiddenError, UnauthorizedError } from '../lib/errors.js';

/** `U`: a USER key is required; `any`: a USER or a GENERAL key. */
export type Scope = 'U' | 'any';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** Resolves `Authorization: Bearer <key>` to `ctx.state.auth`, or answers 401 `{ code, message }`. */
export function authenticate(getEm: () => EntityManager): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (!header) throw new UnauthorizedError('Missing API key: send the header "Authorization: Bearer <API_KEY>"');
    const match = BEARER.exec(header);
    if (!match) throw new UnauthorizedError('Malformed Authorization header: expected "Bearer <API_KEY>"');
    const em = getEm();
    const identity = await verifyKey(em, match[1]!);
    if (!identity) throw new UnauthorizedError('Invalid API key: it is malformed, unknown or revoked');
    ctx.state.auth = identity;
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
