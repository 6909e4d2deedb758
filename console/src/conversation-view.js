// `#/c/<agentId>/<conversationId>`: one conversation: who it is with, who is answering it (the claim) and who else
// has it open or is typing, the actions (take over, hand back, end), the live transcript and the reply box. A claim
// held by someone else is said plainly, and replying over it takes an explicit "Take over anyway".
import { call, conversationPath } from './api.js';
import { channelLabel, clockTime, contactName, el, userName } from './dom.js';
import { composer } from './composer.js';
import { statusLabel } from './conversation-row.js';
import { onChange, store } from './inbox-store.js';
import { transcript } from './transcript.js';

const newMessageId = () => `console-${Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
const isMe = (userId) => !!store.me && userId === store.me.id;

export function conversationView(main, { agentId, conversationId }) {
  const path = conversationPath(agentId, conversationId);
  const info = { contact: null, agentName: '', channel: '', status: null, claim: null, viewers: [] };
  const title = el('h1', { tabindex: '-1', text: 'Conversation' });
  const sub = el('p', { class: 'sub' });
  const people = el('p', { class: 'people', role: 'status', 'aria-live': 'polite' });
  const claimText = el('span');
  const takeAnyway = el('button', { type: 'button', class: 'warn', text: 'Take over anyway', hidden: true });
  const claimBar = el('p', { class: 'claimbar' }, [claimText, takeAnyway]);
  const take = el('button', { type: 'button', class: 'primary', text: 'Take over' });
  const handBack = el('button', { type: 'button', text: 'Hand back to the agent' });
  const end = el('button', { type: 'button', class: 'danger', text: 'End conversation' });
  const confirmEnd = el('p', { class: 'confirm', hidden: true }, [
    el('span', { text: 'End this conversation for the visitor? ' }),
    el('button', { type: 'button', class: 'danger', text: 'End it', onclick: () => act(() => call('POST', `${path}/end`), true) }),
    el('button', { type: 'button', text: 'Keep it open', onclick: () => ((confirmEnd.hidden = true), end.focus()) }),
  ]);
  const actions = el('div', { class: 'actions' }, [take, handBack, end, confirmEnd]);
  const error = el('p', { class: 'error', role: 'alert', hidden: true });
  const conflict = el('div', { class: 'conflict', role: 'alert', hidden: true });
  const log = transcript(info);
  const reply = composer({ onSend: (text) => send(text), onTyping: (typing) => presence(typing) });
  main.append(
    el('div', { class: 'conv-head' }, [el('a', { href: '#/', class: 'back', text: '← Inbox' }), title, sub, people, claimBar, actions]),
    error,
    log.log,
    conflict,
    reply.form,
  );

  const showError = (message) => {
    error.textContent = message;
    error.hidden = !message;
  };
  const showConflict = (message, draft) => {
    conflict.replaceChildren(
      el('span', { text: `${message} ` }),
      el('button', {
        type: 'button',
        class: 'warn',
        text: 'Take over anyway',
        onclick: async () => {
          if (!(await claim(true))) return;
          if (draft !== null && (await send(draft))) reply.clear();
          reply.input.focus();
        },
      }),
      el('button', { type: 'button', text: 'Cancel', onclick: () => ((conflict.hidden = true), reply.input.focus()) }),
    );
    conflict.hidden = false;
    conflict.querySelector('button').focus();
  };

  const apply = (c) => {
    const before = { status: info.status, claim: info.claim };
    Object.assign(info, c);
    title.textContent = contactName(info.contact);
    sub.textContent = [channelLabel(info.channel), info.agentName, statusLabel(info.status)].filter(Boolean).join(' · ');
    const others = (info.viewers || []).filter((v) => !isMe(v.userId));
    const typing = others.filter((v) => v.typing).map(userName);
    people.textContent = [
      others.length ? `Also open by ${others.map(userName).join(', ')}.` : '',
      typing.length ? `${typing.join(', ')} ${typing.length > 1 ? 'are' : 'is'} typing…` : '',
    ]
      .filter(Boolean)
      .join(' ');
    const held = info.claim;
    const mine = held && isMe(held.userId);
    claimText.textContent =
      info.status === 'ENDED'
        ? 'This conversation has ended.'
        : info.status === 'ACTIVE'
          ? 'The agent is answering. Take over to reply yourself.'
          : mine
            ? 'You are answering this conversation.'
            : held
              ? `${userName(held)}${held.email ? ` (${held.email})` : ''} is answering this conversation since ${clockTime(held.claimedAt)}. `
              : 'Waiting for a person: nobody has taken it yet.';
    claimBar.dataset.state = info.status === 'HANDED_OFF' ? (mine ? 'mine' : held ? 'other' : 'open') : info.status.toLowerCase();
    takeAnyway.hidden = !(held && !mine && info.status === 'HANDED_OFF');
    take.hidden = !(info.status === 'ACTIVE' || (info.status === 'HANDED_OFF' && !held));
    handBack.hidden = info.status !== 'HANDED_OFF';
    end.hidden = info.status === 'ENDED';
    if (info.status === 'ENDED') confirmEnd.hidden = true;
    reply.mode(info.status === 'ACTIVE' ? 'Take over and send' : 'Send', info.status !== 'ENDED');
    if (before.status && before.status !== info.status) {
      log.note(
        { HANDED_OFF: 'Handed off to a person.', ACTIVE: 'Handed back to the agent.', ENDED: 'The conversation has ended.' }[info.status] ||
          info.status,
      );
    }
    const was = before.claim && before.claim.userId;
    const now = held && held.userId;
    if (before.status && was !== now && info.status === 'HANDED_OFF') {
      log.note(now ? `${isMe(now) ? 'You' : userName(held)} took the conversation over.` : 'Nobody is answering it now.');
    }
  };

  const claim = async (takeOver) => {
    try {
      apply(await call('POST', `${path}/claim`, takeOver ? { takeOver: true } : {}));
      conflict.hidden = true;
      showError('');
      return true;
    } catch (e) {
      if (e.code === 'conversation_claimed') showConflict(e.message, null);
      else showError(e.message);
      return false;
    }
  };
  const act = async (request, focusReply = false) => {
    try {
      const result = await request();
      showError('');
      confirmEnd.hidden = true;
      apply({ status: result && result.status ? result.status : info.status, claim: null });
      if (focusReply && !reply.input.disabled) reply.input.focus();
    } catch (e) {
      showError(e.message);
    }
  };
  take.addEventListener('click', () => claim(false).then((ok) => ok && reply.input.focus()));
  takeAnyway.addEventListener('click', () => claim(true).then((ok) => ok && reply.input.focus()));
  handBack.addEventListener('click', () => act(() => call('POST', `${path}/resume`)));
  end.addEventListener('click', () => {
    confirmEnd.hidden = false;
    confirmEnd.querySelector('button').focus();
  });

  async function send(text) {
    if (info.status === 'ACTIVE' && !(await claim(false))) return false;
    try {
      const message = await call('POST', `${path}/operator-messages`, { text, messageId: newMessageId(), name: userName(store.me) });
      log.add(message);
      markRead();
      showError('');
      conflict.hidden = true;
      return true;
    } catch (e) {
      if (e.code === 'conversation_claimed') showConflict(e.message, text);
      else showError(e.message);
      return false;
    }
  }

  let typingNow = false;
  const presence = (typing) => {
    typingNow = typing;
    call('PUT', `${path}/presence`, { typing }).catch(() => {});
  };
  const leave = () => call('DELETE', `${path}/presence`, undefined, { keepalive: true }).catch(() => {});
  let marked = null;
  const markRead = () => {
    const id = log.lastId;
    if (!id || id === marked || document.visibilityState !== 'visible') return;
    marked = id;
    call('PUT', `${path}/read`, { messageId: id }).catch(() => {});
  };

  let alive = true;
  const off = onChange((kind, c) => {
    const fresh = kind === 'reload' ? store.byId.get(conversationId) : c;
    if (fresh && fresh.id === conversationId && info.status) apply(fresh);
  });
  (async () => {
    const [inbox, full] = await Promise.all([call('GET', `${path}/inbox`).catch(() => null), call('GET', path)]);
    if (!alive) return;
    apply(inbox || { status: full.status, channel: full.channel, handoffs: full.handoffs });
    for (const message of full.messages) log.add(message);
    log.log.scrollTop = log.log.scrollHeight;
    markRead();
    log.follow(path, markRead, () => apply({ status: 'ENDED', claim: null }));
  })().catch((e) => alive && showError(e.status === 404 ? 'There is no such conversation.' : e.message));
  presence(false);
  const beat = setInterval(() => presence(typingNow), 10_000);
  document.addEventListener('visibilitychange', markRead);
  window.addEventListener('pagehide', leave);
  return () => {
    alive = false;
    off();
    log.close();
    reply.stop();
    clearInterval(beat);
    document.removeEventListener('visibilitychange', markRead);
    window.removeEventListener('pagehide', leave);
    leave();
  };
}
