/** The session cookie of signed-in people: `HttpOnly` (no script reads it), `SameSite=Lax`, `Secure` over https. */

export const SESSION_COOKIE = 'agentry_session';

/** The `Set-Cookie` value carrying `token` for `maxAgeSeconds`, or (token null) clearing the cookie. */
export function sessionCookie(token: string | null, secure: boolean, maxAgeSeconds = 0): string {
  const value = token ?? '';
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${token ? Math.max(0, Math.floor(maxAgeSeconds)) : 0}${secure ? '; Secure' : ''}`;
}
