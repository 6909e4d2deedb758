/**
 * What browsers need from the API: CORS for the origins an operator allows (`CORS_ORIGINS`), and security headers on
 * every answer. API clients authenticate with a bearer key; the console's session cookie is for its own origin only
 * (`SameSite=Lax`, and a CSRF token on writes), so credentials are never allowed cross-origin.
 */
import cors from '@koa/cors';
import type { Middleware } from 'koa';

/** Answers a browser reads cross-origin besides the CORS-safelisted ones. */
const EXPOSED = ['Retry-After', 'X-Request-Id', 'Content-Disposition', 'Content-Range', 'Accept-Ranges'];

/** CORS for `origins` (`['*']`: any origin); no origin allowed: no CORS headers at all, so browsers refuse. */
export function corsFor(origins: string[]): Middleware {
  const allowed = new Set(origins);
  return cors({
    // @koa/cors skips CORS entirely when this answers ''.
    origin: (ctx) => (allowed.has('*') ? '*' : allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposeHeaders: EXPOSED,
    maxAge: 600,
    credentials: false,
  });
}

/** The reference page loads its script and styles from this server only; everything else loads nothing. */
const DOCS_POLICY = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";
/** The full-page chat runs the widget script of this server; the widget's styles live in a <style> of its shadow root. */
const CHAT_POLICY = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/** The operator console (`/console`): its own script, styles, API calls and generated sound only; no inline script or style. */
export const CONSOLE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; media-src 'self' data:; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const policyOf = (path: string) =>
  path === '/docs' || path.startsWith('/docs/')
    ? DOCS_POLICY
    : path.startsWith('/chat/')
      ? CHAT_POLICY
      : path === '/console' || path.startsWith('/console/')
        ? CONSOLE_POLICY
        : API_POLICY;

/** Security headers: no MIME sniffing, no framing, no referrer, and a Content-Security-Policy per kind of answer. */
export const securityHeaders: Middleware = async (ctx, next) => {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', policyOf(ctx.path));
  await next();
};
