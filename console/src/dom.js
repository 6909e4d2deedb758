// Small DOM helpers: every piece of data reaches the page through textContent or an attribute, never innerHTML.

/** `el('a', { href, class: 'x', text: 'Open', onclick }, [children])`. */
export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

/** A link only for http(s) addresses: a `javascript:` URL in a citation stays text. */
export function safeHref(url) {
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

const CHANNELS = { livechat: 'Web chat', messaging: 'WhatsApp', facebook: 'Messenger', instagram: 'Instagram', api: 'API' };
export const channelLabel = (channel) => CHANNELS[channel] || channel || 'Unknown channel';
export const CHANNEL_VALUES = ['livechat', 'messaging', 'facebook', 'instagram'];

/** "just now", "4 min", "2 h 5 min", "3 d": how long since `iso`. */
export function since(iso, now = Date.now()) {
  const minutes = Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000));
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/** A `<time>` showing how long ago, refreshed by `refreshTimes`. */
export function sinceNode(iso, prefix = '') {
  return el('time', { datetime: iso, 'data-since': prefix, title: new Date(iso).toLocaleString(), text: `${prefix}${since(iso)}` });
}

export function refreshTimes(root = document) {
  for (const node of root.querySelectorAll('time[data-since]')) node.textContent = `${node.dataset.since}${since(node.getAttribute('datetime'))}`;
}

export const clockTime = (iso) => new Date(iso).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** Who a contact is, in the fewest words: name, else email, else the network's id, else "Visitor". */
export function contactName(contact) {
  return (contact && (contact.name || contact.email || contact.externalId)) || 'Visitor';
}

/** The name of a user (`{ name, email }`): the name, else the email's part before @. */
export function userName(user) {
  return (user && (user.name || (user.email || '').split('@')[0])) || 'Someone';
}
