// The account's conversations as the inbox sees them (InboxConversation: /work docs, docs/agents.md "Handoff"): the
// ones waiting for a person and the recent active ones, loaded at sign-in and kept current by `GET /inbox/stream`
// (server-sent events, account-wide). Views subscribe with `onChange`; the title badge and the chime listen too.
import { BASE, call, query } from './api.js';

const listeners = new Set();
export const store = { byId: new Map(), me: null, loaded: false };

/** `listener(kind, conversation, before)`: kind `reload` (the lists were read again) or `conversation` (one changed). */
export function onChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const emit = (kind, conversation, before) => {
  for (const listener of [...listeners]) listener(kind, conversation, before);
};

const newest = (field) => (a, b) => (b[field] || '').localeCompare(a[field] || '');
/** Waiting for a person, newest wait first. */
export const waiting = () => [...store.byId.values()].filter((c) => c.status === 'HANDED_OFF').sort(newest('waitingSince'));
/** With the agent, latest message first. */
export const recent = () => [...store.byId.values()].filter((c) => c.status === 'ACTIVE').sort(newest('lastMessageAt'));

export function put(conversation) {
  const before = store.byId.get(conversation.id);
  store.byId.set(conversation.id, conversation);
  emit('conversation', conversation, before);
}

/** Every page of a list, up to `max` items. */
export async function allPages(path, params, max) {
  const items = [];
  let cursor;
  do {
    const page = await call('GET', path + query({ ...params, cursor }));
    items.push(...page.agentry);
    cursor = page.nextCursor;
  } while (cursor && items.length < max);
  return items;
}

let loading = null;
let again = false;
/** Reads the lists again; calls made while a read runs collapse into one more read after it. */
export function loadInbox() {
  if (loading) {
    again = true;
    return loading;
  }
  loading = (async () => {
    try {
      do {
        again = false;
        const [waitingNow, activeNow] = await Promise.all([
          allPages('/conversations', { waiting: 'true', limit: 500 }, 2000),
          call('GET', `/conversations${query({ status: 'ACTIVE', limit: 50 })}`),
        ]);
        store.byId.clear();
        for (const c of [...activeNow.agentry, ...waitingNow]) store.byId.set(c.id, c);
        store.loaded = true;
        emit('reload');
      } while (again);
    } finally {
      loading = null;
    }
  })();
  return loading;
}

/** The lists as read already or being read (the page asks for them beside its session, to draw sooner), else a read. */
export const ensureInbox = () => loading || (store.loaded ? Promise.resolve() : loadInbox());

let source = null;
let retry = null;
/** Opens the account's live stream; a dropped one comes back (EventSource retries by itself; a refused one is reopened). */
export function connectInbox(onError) {
  disconnectInbox();
  source = new EventSource(`${BASE}/inbox/stream`);
  source.addEventListener('conversation', (event) => put(JSON.parse(event.data)));
  source.addEventListener('resync', () => loadInbox().catch(onError));
  source.addEventListener('error', () => {
    if (source && source.readyState === EventSource.CLOSED) {
      // Refused (a 401 when the session ended, a 5xx): ask again shortly; a call that answers 401 signs the page out.
      source = null;
      retry = setTimeout(() => {
        call('GET', '/sessions/current').then(() => connectInbox(onError), onError);
      }, 3000);
    }
  });
}

export function disconnectInbox() {
  clearTimeout(retry);
  if (source) source.close();
  source = null;
}
