/** Signing people in over real HTTP, as the console does: the session cookie and its CSRF token. */
import { setUserPassword } from '../../../db/accounts/passwords.service.js';
import { harness } from '../../setup/harness.js';
import { call, newAccount, type CallOptions, type CallResult } from '../../setup/http.js';

/** A signed-in browser: the cookie it sends back, and the CSRF token its page holds. */
export interface Browser {
  cookie: string;
  csrfToken: string;
  sessionId: string;
}

export const PASSWORD = 'correct horse battery';

/** A fresh account whose user has `PASSWORD`. */
export async function accountWithPassword(password = PASSWORD) {
  const account = await newAccount();
  await setUserPassword(harness().orm.em.fork(), account.user.id, password);
  return account;
}

/** The `Set-Cookie` of the answer for agentry_session, as sent. */
export const sessionSetCookie = (res: CallResult): string | undefined => res.headers.getSetCookie().find((c) => c.startsWith('agentry_session='));

/** `POST /sessions`; the answer as sent. */
export const postSession = (body: Record<string, unknown>, options: CallOptions = {}) => call('POST', '/sessions', { ...options, body });

/** Signs in (asserting 201) and answers the browser's cookie and token. */
export async function signIn(email: string, password = PASSWORD, options: CallOptions = {}): Promise<Browser> {
  const res = await postSession({ email, password }, options);
  if (res.status !== 201) throw new Error(`sign-in answered ${res.status}: ${res.text}`);
  const cookie = sessionSetCookie(res)!.split(';')[0]!;
  return { cookie, csrfToken: res.body.csrfToken, sessionId: res.body.id };
}

/** A call as the browser makes it: the cookie, and the CSRF token unless `csrf` is false or another token. */
export function asBrowser(browser: Browser, method: string, path: string, options: CallOptions & { csrf?: false | string } = {}) {
  const { csrf, ...rest } = options;
  const token = csrf === undefined ? browser.csrfToken : csrf;
  return call(method, path, {
    ...rest,
    headers: { cookie: browser.cookie, ...(token ? { 'x-csrf-token': token } : {}), ...rest.headers },
  });
}
