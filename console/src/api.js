// The console's calls to the public API (`/public/v1`), authenticated by the session cookie; every write carries the
// session's CSRF token. A 401 outside sign-in means the session ended: the shell shows the sign-in form again.
export const BASE = '/public/v1';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const session = { csrf: null, onEnded: () => {} };
export const setCsrf = (token) => (session.csrf = token);
export const whenSessionEnds = (handler) => (session.onEnded = handler);

export async function call(method, path, body, options = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && session.csrf) headers['x-csrf-token'] = session.csrf;
  let res;
  try {
    res = await fetch(BASE + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      keepalive: !!options.keepalive,
    });
  } catch {
    throw new ApiError(0, 'network', 'The server cannot be reached. Check the connection and try again.');
  }
  if (res.status === 204) return null;
  const data = await res.json().catch(() => null);
  if (res.ok) return data;
  const error = new ApiError(res.status, (data && data.code) || 'error', (data && data.message) || `The server answered ${res.status}.`);
  if (res.status === 401 && !options.signIn) session.onEnded(error);
  throw error;
}

/** `?a=1&b=2` of the set values. */
export function query(params) {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '');
  return entries.length ? `?${new URLSearchParams(entries)}` : '';
}

export const conversationPath = (agentId, conversationId) =>
  `/agents/${encodeURIComponent(agentId)}/conversations/${encodeURIComponent(conversationId)}`;
