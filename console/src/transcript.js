// A conversation's transcript: each message with its author, channel, time, delivery status and citations, the AI's
// tool calls as notes; live from the conversation's event stream (new messages, delivery statuses, the end).
import { BASE, query } from './api.js';
import { channelLabel, clockTime, contactName, el, safeHref } from './dom.js';
import { store } from './inbox-store.js';

const DELIVERY = { pending: 'Sending', sent: 'Sent', delivered: 'Delivered', read: 'Read', failed: 'Not delivered' };

function deliveryText(delivery) {
  if (!delivery || !delivery.status) return '';
  return delivery.status === 'failed' && delivery.error ? `Not delivered: ${delivery.error}` : DELIVERY[delivery.status] || delivery.status;
}

function author(message, info) {
  if (message.author === 'user') return contactName(info.contact);
  if (message.author === 'operator') {
    const operator = (message.metadata && message.metadata.operator) || {};
    const you = store.me && operator.userId === store.me.id ? ' (you)' : '';
    return `${operator.name || 'Operator'}${you}`;
  }
  return info.agentName || 'Agent';
}

/** The tools the AI called before writing an agent's reply (`metadata.toolCalls`). */
const toolCallsOf = (message) => (message.metadata && message.metadata.toolCalls) || [];

function toolNote(call) {
  const given = call.arguments;
  // Long arguments come cut to a string; others as the AI gave them.
  const args = typeof given === 'string' ? ` ${given}` : given && Object.keys(given).length ? ` ${JSON.stringify(given)}` : '';
  return el('li', { class: 'note tool', text: `The agent called ${call.name}${args}` });
}

function messageNode(message, info) {
  const delivery = el('span', { class: 'delivery', text: deliveryText(message.delivery) });
  const head = el('p', { class: 'head' }, [
    el('span', { class: 'author', text: author(message, info) }),
    el('span', { class: 'via', text: channelLabel(info.channel) }),
    el('time', { datetime: message.createdAt, text: clockTime(message.createdAt) }),
    delivery,
  ]);
  const body = el('p', { class: 'text', text: message.text });
  const citations = (message.citations || []).map((c) => {
    const href = c.url && safeHref(c.url);
    return el('li', {}, [
      href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer', text: c.title || c.url }) : el('span', { text: c.title || c.url }),
    ]);
  });
  const li = el('li', { class: `msg ${message.author}`, 'data-id': message.id }, [
    head,
    body,
    citations.length ? el('div', { class: 'citations' }, [el('span', { text: 'Sources' }), el('ul', {}, citations)]) : null,
  ]);
  return { li, delivery };
}

/** `info`: `{ contact, agentName, channel }` (updated by the caller as they change). */
export function transcript(info) {
  const log = el('ol', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Transcript' });
  const nodes = new Map();
  let lastId = null;
  let source = null;
  const near = () => log.scrollHeight - log.scrollTop - log.clientHeight < 80;

  const add = (message) => {
    const known = nodes.get(message.id);
    if (known) {
      known.delivery.textContent = deliveryText(message.delivery);
      return false;
    }
    const stick = near();
    for (const call of toolCallsOf(message)) log.append(toolNote(call));
    const node = messageNode(message, info);
    nodes.set(message.id, node);
    log.append(node.li);
    if (!lastId || BigInt(message.id) > BigInt(lastId)) lastId = message.id;
    if (stick) log.scrollTop = log.scrollHeight;
    return true;
  };

  return {
    log,
    get lastId() {
      return lastId;
    },
    add,
    note(text) {
      log.append(el('li', { class: 'note', text }));
      log.scrollTop = log.scrollHeight;
    },
    /** Follows `path/stream` after the newest message shown; `onMessage(message)` for each new one, `onEnd()` at the end. */
    follow(path, onMessage, onEnd) {
      source = new EventSource(`${BASE}${path}/stream${query({ after: lastId })}`);
      source.addEventListener('message', (event) => {
        const message = JSON.parse(event.data);
        if (add(message)) onMessage(message);
      });
      source.addEventListener('status', (event) => add(JSON.parse(event.data)));
      source.addEventListener('end', () => {
        source.close();
        onEnd();
      });
    },
    close() {
      if (source) source.close();
    },
  };
}
