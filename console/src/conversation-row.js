// One conversation in a list (the inbox, the search): built once, then updated in place as live events arrive, so a
// keyboard user's focus inside the list stays where it is.
import { call, conversationPath } from './api.js';
import { channelLabel, contactName, el, since, userName } from './dom.js';
import { store } from './inbox-store.js';

export const conversationHash = (c) => `#/c/${c.agentId}/${c.id}`;

const AUTHOR = { user: 'Visitor', agent: 'Agent', operator: 'Operator' };
const STATUS = { ACTIVE: 'With the agent', HANDED_OFF: 'Waiting for a person', ENDED: 'Ended' };
export const statusLabel = (status) => STATUS[status] || status;

/** Claims `c` for the signed-in person and opens it; a claim held by someone else is shown with "Take over anyway". */
export async function claimAndOpen(c, conflictBox, takeOver = false) {
  try {
    await call('POST', `${conversationPath(c.agentId, c.id)}/claim`, takeOver ? { takeOver: true } : {});
    location.hash = conversationHash(c);
  } catch (error) {
    conflictBox.replaceChildren(el('span', { text: error.message }));
    if (error.code === 'conversation_claimed') {
      conflictBox.append(
        el('button', { type: 'button', class: 'warn', text: 'Take over anyway', onclick: () => claimAndOpen(c, conflictBox, true) }),
      );
    }
    conflictBox.hidden = false;
  }
}

export function conversationRow() {
  const contact = el('strong', { class: 'contact' });
  const meta = el('span', { class: 'meta' });
  const last = el('span', { class: 'last' });
  const link = el('a', { class: 'open' }, [contact, meta, last]);
  const wait = el('time', { class: 'wait', 'data-since': 'waiting ' });
  const unread = el('span', { class: 'unread' });
  const claim = el('span', { class: 'claim' });
  const viewers = el('span', { class: 'viewers' });
  const conflict = el('p', { class: 'conflict', role: 'alert', hidden: true });
  const claimButton = el('button', { type: 'button', class: 'take' });
  const li = el('li', { class: 'conv' }, [link, el('div', { class: 'side' }, [wait, unread, claim, viewers, claimButton]), conflict]);
  let current = null;
  claimButton.addEventListener('click', () => claimAndOpen(current, conflict));

  const update = (c) => {
    current = c;
    li.dataset.id = c.id;
    li.dataset.status = c.status;
    link.href = conversationHash(c);
    contact.textContent = contactName(c.contact);
    meta.textContent = `${channelLabel(c.channel)} · ${c.agentName || 'Agent'}${c.status === 'HANDED_OFF' ? '' : ` · ${statusLabel(c.status)}`}`;
    const message = c.lastMessage;
    last.textContent = message ? `${AUTHOR[message.author] || message.author}: ${message.text}` : 'No messages yet';
    wait.hidden = !c.waitingSince;
    if (c.waitingSince) {
      wait.setAttribute('datetime', c.waitingSince);
      wait.textContent = `waiting ${since(c.waitingSince)}`;
    }
    unread.hidden = !c.unread;
    unread.textContent = c.unread ? `${c.unread} unread` : '';
    const mine = c.claim && store.me && c.claim.userId === store.me.id;
    claim.hidden = !c.claim;
    claim.textContent = c.claim ? (mine ? 'You are answering' : `${userName(c.claim)} is answering`) : '';
    const others = (c.viewers || []).filter((v) => !store.me || v.userId !== store.me.id);
    viewers.hidden = !others.length;
    viewers.textContent = others.length ? `Open by ${others.map((v) => `${userName(v)}${v.typing ? ' (typing)' : ''}`).join(', ')}` : '';
    claimButton.hidden = c.status === 'ENDED' || !!mine;
    claimButton.textContent = 'Take over';
    claimButton.setAttribute('aria-label', `Take over the conversation with ${contactName(c.contact)}`);
  };
  return { li, update };
}

/** Keeps `list` (a <ul>) showing `items` in order, reusing rows by id. */
export function syncList(list, rows, items) {
  const keep = new Set(items.map((c) => c.id));
  for (const [id, row] of rows) {
    if (!keep.has(id)) {
      row.li.remove();
      rows.delete(id);
    }
  }
  let at = list.firstElementChild;
  for (const c of items) {
    let row = rows.get(c.id);
    if (!row) {
      row = conversationRow();
      rows.set(c.id, row);
    }
    row.update(c);
    // Moved only when out of place: moving a row would take the focus out of it.
    if (row.li !== at) list.insertBefore(row.li, at);
    else at = at.nextElementSibling;
  }
}
