// `#/all?q=…&status=…&channel=…&agentId=…`: every conversation of the account, found by text (messages and the
// contact's name, email or number), status, channel and agent; the filters live in the address, so a search can be
// reloaded or shared. Rows shown are updated live.
import { call, query } from './api.js';
import { CHANNEL_VALUES, channelLabel, el } from './dom.js';
import { statusLabel, syncList } from './conversation-row.js';
import { allPages, onChange } from './inbox-store.js';

let agents = null;
const agentList = () => (agents = agents || allPages('/agents', { limit: 500 }, 5000).catch(() => ((agents = null), [])));

function select(name, label, options, value) {
  const id = `search-${name}`;
  const node = el('select', { id, name }, [el('option', { value: '', text: 'Any' })]);
  for (const [v, text] of options) node.append(el('option', { value: v, text, selected: v === value }));
  return el('div', { class: 'field' }, [el('label', { for: id, text: label }), node]);
}

export function searchView(main, params) {
  const filters = {
    q: params.get('q') || '',
    status: params.get('status') || '',
    channel: params.get('channel') || '',
    agentId: params.get('agentId') || '',
  };
  const text = el('input', { id: 'search-q', name: 'q', type: 'search', value: filters.q, autocomplete: 'off' });
  const agentSlot = el('div', { class: 'field-slot' });
  const form = el('form', { class: 'filters', role: 'search', 'aria-label': 'Search conversations' }, [
    el('div', { class: 'field wide' }, [el('label', { for: 'search-q', text: 'Text or contact (name, email, number)' }), text]),
    select(
      'status',
      'Status',
      ['ACTIVE', 'HANDED_OFF', 'ENDED'].map((s) => [s, statusLabel(s)]),
      filters.status,
    ),
    select(
      'channel',
      'Channel',
      CHANNEL_VALUES.map((c) => [c, channelLabel(c)]),
      filters.channel,
    ),
    agentSlot,
    el('button', { type: 'submit', text: 'Search' }),
  ]);
  const status = el('p', { class: 'result-status', role: 'status', 'aria-live': 'polite' });
  const list = el('ul', { class: 'list', 'aria-label': 'Conversations found' });
  const more = el('button', { type: 'button', class: 'more', hidden: true, text: 'Show more' });
  main.append(el('h1', { tabindex: '-1', text: 'All conversations' }), form, status, list, more);

  agentList().then((found) => {
    agentSlot.replaceWith(
      select(
        'agentId',
        'Agent',
        found.map((a) => [a.id, a.name]),
        filters.agentId,
      ),
    );
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    location.hash = `#/all${query({ q: data.get('q').trim(), status: data.get('status'), channel: data.get('channel'), agentId: data.get('agentId') })}`;
  });

  const rows = new Map();
  let items = [];
  let cursor = null;
  let alive = true;
  const load = async () => {
    more.disabled = true;
    try {
      const page = await call('GET', `/conversations${query({ ...filters, limit: 50, cursor })}`);
      if (!alive) return;
      items = items.concat(page.agentry);
      cursor = page.nextCursor;
      syncList(list, rows, items);
      status.textContent = items.length
        ? `${items.length}${cursor ? '+' : ''} conversation${items.length === 1 && !cursor ? '' : 's'}`
        : 'No conversation matches.';
      more.hidden = !cursor;
    } catch (error) {
      if (alive) status.textContent = error.message;
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener('click', load);
  status.textContent = 'Searching…';
  load();
  const off = onChange((kind, c) => {
    if (kind !== 'conversation' || !rows.has(c.id)) return;
    items = items.map((item) => (item.id === c.id ? c : item));
    rows.get(c.id).update(c);
  });
  return () => {
    alive = false;
    off();
  };
}
