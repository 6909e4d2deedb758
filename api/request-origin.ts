/**
 * Who called and which address they called, as `TRUST_PROXY` allows the API to believe it (lib/http/
 * trusted-proxies.ts): set once per request on `ctx.state.origin`, read by the routes (per-address limits, the
 * widget's own origin) instead of Koa's `ctx.ip`, `ctx.protocol` and `ctx.host`, which would trust any header.
 */
import type { Context, Middleware } from 'koa';
import { requestOrigin, type RequestOrigin, type TrustProxy } from '../lib/http/trusted-proxies.js';

export const NO_TRUSTED_PROXY: TrustProxy = { kind: 'off' };

export function requestOrigins(trust: TrustProxy = NO_TRUSTED_PROXY): Middleware {
  return (ctx, next) => {
    const socket = ctx.req.socket as { remoteAddress?: string; encrypted?: boolean };
    ctx.state.origin = requestOrigin(trust, { address: socket.remoteAddress ?? '', protocol: socket.encrypted ? 'https' : 'http' }, ctx.get('host'), {
      forwardedFor: ctx.get('x-forwarded-for'),
      forwardedProto: ctx.get('x-forwarded-proto'),
      forwardedHost: ctx.get('x-forwarded-host'),
    });
    return next();
  };
}

/** The request's origin (`requestOrigins` ran first). */
export const originOf = (ctx: Context): RequestOrigin => ctx.state.origin as RequestOrigin;

/** `https://api.example.com`: the scheme and host the client called. */
export const selfOriginOf = (ctx: Context): string => `${originOf(ctx).protocol}://${originOf(ctx).host}`;
