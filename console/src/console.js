// The agentry operator console: one page (served at /console, built by the API from these files, api/console/) whose
// views are hash routes: `#/` the inbox, `#/all` the search, `#/c/<agentId>/<conversationId>` a conversation,
// `#/sessions` where one is signed in. It speaks the public API with the session cookie (and its CSRF token), and
// renders every piece of data as text.
import { call, setCsrf, whenSessionEnds } from './api.js';
import { contactName, el, userName } from './dom.js';
import { conversationView } from './conversation-view.js';
import { connectInbox, disconnectInbox, ensureInbox, loadInbox, onChange, store } from './inbox-store.js';
import { inboxView } from './inbox-view.js';
import { setSound, soundOn, startNotifications, unclaimed } from './notify.js';
import { searchView } from './search-view.js';
import { sessionsView } from './sessions-view.js';
import { signInView } from './sign-in.js';

const root = document.getElementById('app');
let leaveView = null;
let stopNotifications = null;
let shell = null;

function route() {
  const [path, search = ''] = location.hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'c' && parts.length === 3) return { name: 'conversation', params: { agentId: parts[1], conversationId: parts[2] } };
  if (parts[0] === 'all') return { name: 'all', params: new URLSearchParams(search) };
  if (parts[0] === 'sessions') return { name: 'sessions', params: { signedOut } };
  return { name: 'inbox', params: {} };
}

const VIEWS = { inbox: inboxView, all: searchView, conversation: conversationView, sessions: sessionsView };

function show() {
  if (!shell) return;
  if (leaveView) leaveView();
  const { name, params } = route();
  for (const link of shell.nav.querySelectorAll('a')) {
    if (link.dataset.view === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  shell.main.replaceChildren();
  leaveView = VIEWS[name](shell.main, params);
  const heading = shell.main.querySelector('h1');
  if (heading && shell.moved) heading.focus();
  shell.moved = true;
}

function buildShell() {
  const count = el('span', { class: 'badge', 'aria-label': 'waiting' });
  const nav = el('nav', { 'aria-label': 'Console' }, [
    el('a', { href: '#/', 'data-view': 'inbox' }, [el('span', { text: 'Inbox ' }), count]),
    el('a', { href: '#/all', 'data-view': 'all', text: 'All conversations' }),
    el('a', { href: '#/sessions', 'data-view': 'sessions', text: 'Sessions' }),
  ]);
  const sound = el('button', { type: 'button', class: 'quiet', 'aria-pressed': String(soundOn()), text: 'Sound' });
  sound.addEventListener('click', () => {
    setSound(!soundOn());
    sound.setAttribute('aria-pressed', String(soundOn()));
  });
  const signOut = el('button', { type: 'button', class: 'quiet', text: 'Sign out' });
  signOut.addEventListener('click', async () => {
    await call('DELETE', '/sessions/current').catch(() => {});
    signedOut('You are signed out.');
  });
  const main = el('main', { id: 'main', tabindex: '-1' });
  const skip = el('button', { type: 'button', class: 'skip', text: 'Skip to content', onclick: () => (main.querySelector('h1') || main).focus() });
  const announcer = el('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' });
  const header = el('header', { class: 'bar' }, [
    el('span', { class: 'brand', text: 'agentry console' }),
    nav,
    el('span', { class: 'who', text: userName(store.me) }),
    sound,
    signOut,
  ]);
  root.replaceChildren(skip, header, announcer, main);
  const badge = () => {
    const n = unclaimed();
    count.textContent = n ? String(n) : '';
    count.hidden = !n;
  };
  return { main, nav, announcer, badge, moved: false };
}

function start(session) {
  setCsrf(session.csrfToken);
  store.me = session.user;
  shell = buildShell();
  const announce = (text) => (shell.announcer.textContent = text);
  const fail = (e) => announce(e.message);
  stopNotifications = startNotifications(announce, (c) => `${contactName(c.contact)} on ${c.agentName || 'an agent'}`);
  shell.badge();
  shell.offBadge = onChange(shell.badge);
  connectInbox(fail);
  ensureInbox().catch(fail);
  show();
}

function signedOut(notice) {
  disconnectInbox();
  if (leaveView) leaveView();
  leaveView = null;
  if (stopNotifications) stopNotifications();
  if (shell) shell.offBadge();
  shell = null;
  store.byId.clear();
  store.loaded = false;
  setCsrf(null);
  signInView(root, start, notice);
}

whenSessionEnds(() => {
  if (shell) signedOut('Your session has ended. Sign in again.');
});
window.addEventListener('hashchange', show);
// The lists are asked for beside the session: signed in, the inbox draws one round trip sooner; signed out, the 401
// changes nothing (no view is shown yet).
loadInbox().catch(() => {});
call('GET', '/sessions/current', undefined, { signIn: true }).then(start, (e) =>
  e.status === 401 ? signInView(root, start) : root.replaceChildren(el('p', { class: 'error', role: 'alert', text: e.message })),
);
