// `#/`: the conversations waiting for a person, newest wait first, then those with the agent; live from the store.
import { el, refreshTimes } from './dom.js';
import { syncList } from './conversation-row.js';
import { onChange, recent, store, waiting } from './inbox-store.js';

export function inboxView(main) {
  const waitingCount = el('span', { class: 'count' });
  const waitingList = el('ul', { class: 'list', 'aria-labelledby': 'waiting-heading' });
  const waitingEmpty = el('p', { class: 'empty', text: 'Nobody is waiting for a person right now.' });
  const recentList = el('ul', { class: 'list', 'aria-labelledby': 'recent-heading' });
  const recentEmpty = el('p', { class: 'empty', text: 'No conversation is with the agent right now.' });
  const loading = el('p', { class: 'empty', text: 'Loading…' });
  main.append(
    el('h1', { tabindex: '-1', text: 'Inbox' }),
    loading,
    el('section', { class: 'waiting' }, [
      el('h2', { id: 'waiting-heading' }, [el('span', { text: 'Waiting for a person ' }), waitingCount]),
      waitingEmpty,
      waitingList,
    ]),
    el('section', {}, [el('h2', { id: 'recent-heading', text: 'With the agent' }), recentEmpty, recentList]),
  );
  const waitingRows = new Map();
  const recentRows = new Map();
  let frame = 0;
  const render = () => {
    frame = 0;
    loading.hidden = store.loaded;
    const w = waiting();
    const r = recent();
    waitingCount.textContent = `(${w.length})`;
    waitingEmpty.hidden = !store.loaded || w.length > 0;
    recentEmpty.hidden = !store.loaded || r.length > 0;
    syncList(waitingList, waitingRows, w);
    syncList(recentList, recentRows, r);
  };
  render();
  // Events that come together (a burst of messages) are drawn once per frame.
  const off = onChange(() => {
    frame = frame || requestAnimationFrame(render);
  });
  const clock = setInterval(() => refreshTimes(main), 30_000);
  return () => {
    off();
    cancelAnimationFrame(frame);
    clearInterval(clock);
  };
}
