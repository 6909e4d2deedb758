// `#/sessions`: where the signed-in person is signed in (this browser and others), each revocable, and "sign out
// everywhere".
import { call } from './api.js';
import { el } from './dom.js';

const date = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

export function sessionsView(main, { signedOut }) {
  const list = el('ul', { class: 'sessions', 'aria-label': 'Your sessions' });
  const status = el('p', { role: 'status', 'aria-live': 'polite' });
  const everywhere = el('button', { type: 'button', class: 'danger', text: 'Sign out everywhere' });
  main.append(
    el('h1', { tabindex: '-1', text: 'Sessions' }),
    el('p', { text: 'The browsers where you are signed in to the console. Signing out everywhere ends all of them, this one included.' }),
    status,
    list,
    everywhere,
  );
  let alive = true;
  const load = async () => {
    try {
      const { agentry } = await call('GET', '/sessions?limit=100');
      if (!alive) return;
      list.replaceChildren(
        ...agentry.map((s) =>
          el('li', { class: s.current ? 'current' : '' }, [
            el('strong', { text: s.current ? 'This browser' : s.userAgent || 'Unknown browser' }),
            el('dl', {}, [
              ...(s.current ? [el('dt', { text: 'Browser' }), el('dd', { text: s.userAgent || '—' })] : []),
              el('dt', { text: 'Address' }),
              el('dd', { text: s.address || '—' }),
              el('dt', { text: 'Signed in' }),
              el('dd', { text: date(s.createdAt) }),
              el('dt', { text: 'Last seen' }),
              el('dd', { text: date(s.lastSeenAt) }),
              el('dt', { text: 'Expires' }),
              el('dd', { text: date(s.expiresAt) }),
            ]),
            el('button', {
              type: 'button',
              text: 'Sign out',
              'aria-label': s.current ? 'Sign out of this browser' : `Sign out of the session from ${s.address || 'an unknown address'}`,
              onclick: async () => {
                await call('DELETE', s.current ? '/sessions/current' : `/sessions/${encodeURIComponent(s.id)}`).catch(
                  (e) => (status.textContent = e.message),
                );
                if (s.current) signedOut('You are signed out.');
                else {
                  status.textContent = 'That session is signed out.';
                  load();
                }
              },
            }),
          ]),
        ),
      );
    } catch (e) {
      if (alive) status.textContent = e.message;
    }
  };
  everywhere.addEventListener('click', async () => {
    try {
      await call('DELETE', '/sessions');
      signedOut('You are signed out everywhere.');
    } catch (e) {
      status.textContent = e.message;
    }
  });
  load();
  return () => {
    alive = false;
  };
}
