// The reply box: Enter sends, Shift+Enter adds a line (a composition in progress, as with an IME, is left alone).
// `onSend(text)` answers true once sent (the box empties); `onTyping(bool)` when typing starts and stops.
import { el } from './dom.js';

const IDLE_MS = 5000;

export function composer({ onSend, onTyping }) {
  const input = el('textarea', { id: 'reply', rows: '3', maxlength: '20000', 'aria-describedby': 'reply-hint' });
  const button = el('button', { type: 'submit', class: 'primary', text: 'Send' });
  const hint = el('span', { id: 'reply-hint', class: 'hint', text: 'Enter sends · Shift+Enter adds a line' });
  const form = el('form', { class: 'composer', 'aria-label': 'Reply to the visitor' }, [
    el('label', { for: 'reply', text: 'Reply' }),
    input,
    el('div', { class: 'row' }, [hint, button]),
  ]);
  let typing = false;
  let idle = 0;
  let busy = false;
  const setTyping = (now) => {
    clearTimeout(idle);
    if (now) idle = setTimeout(() => setTyping(false), IDLE_MS);
    if (now !== typing) {
      typing = now;
      onTyping(now);
    }
  };
  input.addEventListener('input', () => setTyping(input.value.trim() !== ''));
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = input.value;
    if (busy || !text.trim() || input.disabled) return;
    busy = true;
    button.disabled = true;
    try {
      if (await onSend(text)) clear();
    } finally {
      busy = false;
      button.disabled = input.disabled;
    }
  });
  const clear = () => {
    input.value = '';
    setTyping(false);
  };
  return {
    form,
    input,
    clear,
    /** The send button's words and whether replying is possible at all (not in an ended conversation). */
    mode(label, enabled) {
      button.textContent = label;
      input.disabled = !enabled;
      button.disabled = !enabled;
    },
    stop: () => clearTimeout(idle),
  };
}
