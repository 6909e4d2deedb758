// The agentry livechat widget: one script tag, no framework. It draws a launcher and a chat panel inside a Shadow
// DOM (the host page's styles cannot reach in, ours cannot leak out), themed by the agent, and talks to the key-less
// widget API: a session (a short-lived token scoped to one conversation), messages, a server-sent event stream,
// feedback and end. The token and conversation id stay in the visitor's localStorage, so a reload resumes.
// Built and minified by the API at start (api/widget/widget-bundle.ts); budget 30 kB gzipped (test/api/widget/).
import { FULL_SCREEN, STYLE } from './style.js';
import { readEvents } from './sse.js';

const script = document.currentScript || document.querySelector('script[data-agent-id]');
const attr = (name) => (script && script.getAttribute(`data-${name}`)) || undefined;
const agentId = attr('agent-id');
const base = script ? new URL(script.src, location.href).origin : location.origin;
const pageMode = attr('mode') === 'page';
const identity = { userId: attr('user-id'), name: attr('user-name'), email: attr('user-email'), userHash: attr('user-hash') };
const api = `${base}/widget/v1/agents/${encodeURIComponent(agentId || '')}`;
const storeKey = `agentry-widget:${agentId}`;

const el = (tag, props = {}, children = []) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== false) node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children) node.append(child);
  return node;
};

const store = {
  read() {
    try {
      return JSON.parse(localStorage.getItem(storeKey) || 'null');
    } catch {
      return null;
    }
  },
  write(value) {
    try {
      if (value) localStorage.setItem(storeKey, JSON.stringify(value));
      else localStorage.removeItem(storeKey);
    } catch {
      // Storage may be off (private modes, sandboxed frames): the chat still works, without resuming.
    }
  },
};

class Widget {
  constructor() {
    this.session = null;
    this.seen = new Set();
    this.pending = [];
    this.ended = false;
    this.streaming = null;
    this.host = el('div', { 'data-agentry-widget': '' });
    this.root = this.host.attachShadow({ mode: 'open' });
    this.root.append(el('style', { text: STYLE }));
    this.build();
    (document.body || document.documentElement).append(this.host);
  }

  build() {
    const svg =
      '<svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true"><path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H8l-4 4V6a2 2 0 0 1 2-2z"/></svg>';
    this.launcher = el('button', {
      class: 'launcher',
      type: 'button',
      'aria-expanded': 'false',
      'aria-controls': 'panel',
      onclick: () => this.toggle(),
    });
    this.launcher.innerHTML = svg;
    this.title = el('h2', { id: 'title', class: 'title' });
    this.subtitle = el('p', { class: 'subtitle' });
    this.endButton = el('button', { type: 'button', class: 'end', text: 'End chat', onclick: () => this.end() });
    const close = el('button', { type: 'button', class: 'close', 'aria-label': 'Close chat', text: '×', onclick: () => this.toggle(false) });
    this.closeButton = close;
    this.notice = el('p', { class: 'notice', role: 'status', 'aria-live': 'polite' });
    this.log = el('ol', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Messages' });
    this.typing = el('div', { class: 'typing', hidden: true, 'aria-hidden': 'true' }, [el('span'), el('span'), el('span')]);
    this.input = el('textarea', { id: 'input', rows: '1', maxlength: '4000', 'aria-label': 'Message' });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        this.send();
      }
    });
    this.sendButton = el('button', { type: 'submit', class: 'send', text: 'Send' });
    this.composer = el('form', { class: 'composer', onsubmit: (event) => (event.preventDefault(), this.send()) }, [this.input, this.sendButton]);
    this.feedback = el('form', { class: 'feedback', hidden: true });
    const header = el('header', {}, [el('div', { class: 'heading' }, [this.title, this.subtitle]), this.endButton, ...(pageMode ? [] : [close])]);
    this.panel = el('div', { id: 'panel', class: 'panel', role: 'dialog', 'aria-labelledby': 'title', hidden: !pageMode }, [
      header,
      this.notice,
      this.log,
      this.typing,
      this.composer,
      this.feedback,
    ]);
    this.panel.addEventListener('keydown', (event) => this.keydown(event));
    // The launcher comes after the panel: a full-screen panel hides it through a sibling selector (style.js).
    this.frame = el('div', { class: `frame ${pageMode ? 'page' : 'bubble'}` }, pageMode ? [this.panel] : [this.panel, this.launcher]);
    this.root.append(this.frame);
    this.applyTheme({});
    // A full-screen panel hides the launcher (style.js): the focus it held moves to the panel's own close button. The
    // browser may already have dropped it to the page's body when the style changed, before this event.
    const fullScreen = window.matchMedia(FULL_SCREEN);
    fullScreen.addEventListener('change', () => {
      const lost = this.root.activeElement === this.launcher || !document.activeElement || document.activeElement === document.body;
      if (fullScreen.matches && !this.panel.hidden && lost) this.closeButton.focus();
    });
  }

  applyTheme(theme) {
    this.theme = theme;
    const vars = {
      '--primary': theme.primaryColor,
      '--secondary': theme.secondaryColor,
      '--bg': theme.backgroundColor,
      '--text': theme.textColor,
      '--user': theme.userBubbleColor,
      '--agent': theme.agentBubbleColor,
    };
    for (const [name, value] of Object.entries(vars)) if (value) this.frame.style.setProperty(name, value);
    this.frame.classList.toggle('left', theme.position === 'left');
    this.title.textContent = theme.title || 'Chat';
    this.subtitle.textContent = theme.subtitle || '';
    this.input.placeholder = theme.inputPlaceholder || 'Type a message…';
    this.launcher.setAttribute('aria-label', `Open chat: ${this.title.textContent}`);
    this.panel.setAttribute('aria-modal', pageMode ? 'false' : 'true');
  }

  async request(path, { method = 'GET', body, token } = {}) {
    const headers = {};
    if (body) headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const response = await fetch(`${api}${path}`, { method, headers, body: body && JSON.stringify(body) });
    const data = await response.json().catch(() => ({}));
    return { status: response.status, data, retryAfter: Number(response.headers.get('retry-after')) || 0 };
  }

  async load() {
    try {
      const { status, data } = await this.request('/config');
      if (status !== 200) throw new Error(data.message);
      this.applyTheme(data.theme || {});
      this.available = data.status;
    } catch {
      this.available = 'error';
    }
    this.frame.classList.add('ready');
    performance.mark('agentry-widget:launcher'); // when the launcher shows: test/bench/widget.bench.ts reads it
    const saved = store.read();
    if (pageMode || (saved && saved.open)) await this.open();
  }

  toggle(open = this.panel.hidden) {
    if (open) return this.open();
    this.panel.hidden = true;
    this.launcher.setAttribute('aria-expanded', 'false');
    const saved = store.read();
    if (saved) store.write({ ...saved, open: false });
    this.launcher.focus();
  }

  async open() {
    this.panel.hidden = false;
    this.launcher.setAttribute('aria-expanded', 'true');
    this.input.focus();
    if (!this.session && !this.starting) this.starting = this.start().finally(() => (this.starting = null));
    await this.starting;
    if (this.session) store.write({ ...store.read(), open: !pageMode });
  }

  say(text, kind) {
    this.notice.textContent = text;
    this.notice.className = `notice ${kind || ''}`;
  }

  async start() {
    if (this.available === 'error') return this.unavailable('This chat is not available here right now.');
    const saved = store.read();
    const body = { pageUrl: location.href.slice(0, 2000) };
    if (saved && saved.token) body.resume = saved.token;
    if (identity.userId) Object.assign(body, Object.fromEntries(Object.entries(identity).filter(([, v]) => v)));
    let reply;
    try {
      reply = await this.request('/sessions', { method: 'POST', body });
    } catch {
      return this.unavailable('This chat is not available here right now.');
    }
    const { status, data, retryAfter } = reply;
    if (status === 429) return this.unavailable(`Too many chats started from here: please slow down and try again in ${retryAfter} s.`, 'slow');
    if (status === 401) return this.unavailable('We could not verify who you are, so this chat cannot start.');
    if (status === 403) return this.unavailable('This chat is not available on this site.');
    if (status >= 400) return this.unavailable(data.message || 'This chat is not available right now.');
    this.applyTheme(data.theme || this.theme);
    if (data.status === 'offline') return this.unavailable(data.message, 'offline');
    this.session = data;
    store.write({ token: data.token, conversationId: data.conversationId, open: !pageMode && !this.panel.hidden });
    for (const message of data.messages) this.show(message);
    this.stream();
  }

  unavailable(text, kind = 'error') {
    this.say(text, kind);
    this.composer.hidden = true;
    this.endButton.hidden = true;
    this.frame.classList.add(kind);
  }

  show(message) {
    if (this.seen.has(message.id)) return;
    this.seen.add(message.id);
    if (message.author === 'user') {
      const local = this.pending.findIndex((p) => p.text === message.text);
      if (local >= 0) return void this.pending.splice(local, 1);
    } else this.typing.hidden = true;
    const operator = message.author === 'operator' ? (message.metadata && message.metadata.operator) || {} : null;
    this.bubble(message.author, message.text, operator);
  }

  // An operator's message (a person who took the conversation over) shows on the agent's side, under their name.
  bubble(author, text, operator = null) {
    const side = author === 'user' ? 'user' : 'agent';
    const who = author === 'user' ? 'You' : operator ? operator.name || 'Team' : this.title.textContent;
    const item = el('li', { class: `message ${side}${operator ? ' operator' : ''}` }, [
      el('span', { class: 'sr', text: `${who}: ` }),
      ...(operator && operator.name ? [el('span', { class: 'who', 'aria-hidden': 'true', text: operator.name })] : []),
      el('span', { class: 'text', text }),
    ]);
    this.log.append(item);
    this.log.scrollTop = this.log.scrollHeight;
    return item;
  }

  async send() {
    const text = this.input.value.trim();
    if (!text || !this.session || this.ended) return;
    this.input.value = '';
    this.pending.push({ text });
    this.bubble('user', text);
    this.typing.hidden = false;
    this.say('');
    const path = `/conversations/${this.session.conversationId}/messages`;
    const body = { text, messageId: `w${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`, pageUrl: location.href.slice(0, 2000) };
    try {
      const { status, data, retryAfter } = await this.request(path, { method: 'POST', body, token: this.session.token });
      if (status === 429) this.say(`Slow down: you can send another message in ${retryAfter} s.`, 'slow');
      else if (status === 401) await this.renew();
      else if (status === 409) this.finish();
      else if (status >= 400) this.say(data.message || 'The message could not be sent.', 'error');
      else for (const message of data.messages) this.show(message);
    } catch {
      this.say('The message could not be sent: check your connection.', 'error');
    }
    this.typing.hidden = true;
  }

  /** A token that expired: a new one for the same conversation. */
  async renew() {
    this.session = null;
    await this.start();
  }

  async stream() {
    const token = this.session.token;
    const last = [...this.seen].map(Number).reduce((a, b) => Math.max(a, b), 0);
    const controller = new AbortController();
    this.streaming = controller;
    try {
      const response = await fetch(`${api}/conversations/${this.session.conversationId}/stream${last ? `?after=${last}` : ''}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      });
      if (response.ok) {
        await readEvents(response.body, (event, data) => {
          if (event === 'message') this.show(JSON.parse(data));
          if (event === 'end') this.finish();
        });
      }
    } catch {
      // The stream broke (network, a proxy's timeout): it starts again below after the last message seen.
    }
    if (!this.ended && this.streaming === controller && this.session) setTimeout(() => this.stream(), 2000);
  }

  async end() {
    if (!this.session || this.ended) return;
    await this.request(`/conversations/${this.session.conversationId}/end`, { method: 'POST', token: this.session.token }).catch(() => null);
    this.finish();
  }

  finish() {
    if (this.ended) return;
    this.ended = true;
    this.streaming?.abort();
    this.composer.hidden = true;
    this.endButton.hidden = true;
    this.typing.hidden = true;
    store.write(null);
    this.say('This conversation has ended.', 'ended');
    if (this.session && this.session.feedback) this.askFeedback();
  }

  askFeedback() {
    let rating = null;
    const stars = [1, 2, 3, 4, 5].map((n) =>
      el('button', {
        type: 'button',
        class: 'star',
        'aria-pressed': 'false',
        'aria-label': `${n} of 5`,
        text: '★',
        onclick: () => {
          rating = n;
          stars.forEach((s, i) => s.setAttribute('aria-pressed', String(i < n)));
        },
      }),
    );
    const comment = el('textarea', { rows: '2', maxlength: '5000', 'aria-label': 'Comment (optional)', placeholder: 'Anything to add?' });
    this.feedback.replaceChildren(
      el('p', { id: 'rate', text: 'How did we do?' }),
      el('div', { class: 'stars', role: 'group', 'aria-labelledby': 'rate' }, stars),
      comment,
      el('button', { type: 'submit', class: 'send', text: 'Send feedback' }),
    );
    this.feedback.onsubmit = async (event) => {
      event.preventDefault();
      const body = { rating, ...(comment.value.trim() ? { comment: comment.value.trim() } : {}) };
      const { status } = await this.request(`/conversations/${this.session.conversationId}/feedback`, {
        method: 'POST',
        body,
        token: this.session.token,
      });
      this.feedback.hidden = true;
      this.say(status < 400 ? 'Thank you for your feedback!' : 'Your feedback could not be sent.', status < 400 ? 'ended' : 'error');
    };
    this.feedback.hidden = false;
    stars[0].focus();
  }

  /** Keeps Tab inside the open panel (a modal dialog over the page) and closes it with Escape. */
  keydown(event) {
    if (event.key === 'Escape' && !pageMode) return this.toggle(false);
    if (event.key !== 'Tab') return;
    const focusable = [...this.panel.querySelectorAll('button, textarea, [tabindex]')].filter((n) => !n.disabled && n.offsetParent !== null);
    if (!focusable.length) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    const active = this.root.activeElement;
    if (event.shiftKey && (active === first || !this.panel.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !this.panel.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  }
}

if (agentId && !document.querySelector(`[data-agentry-widget]`)) {
  const widget = new Widget();
  widget.load();
}
