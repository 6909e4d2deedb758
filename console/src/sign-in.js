// The sign-in form, shown when there is no live session (`GET /sessions/current` answers 401).
import { call } from './api.js';
import { el } from './dom.js';

/** `onSignedIn(session)` with the answer of `POST /sessions`; `notice`: why the form is shown (signed out, expired). */
export function signInView(root, onSignedIn, notice = '') {
  const email = el('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'username', required: true });
  const password = el('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const error = el('p', { class: 'error', id: 'sign-in-error', role: 'alert', hidden: true });
  const button = el('button', { type: 'submit', class: 'primary', text: 'Sign in' });
  const form = el('form', { class: 'sign-in', 'aria-describedby': 'sign-in-error' }, [
    el('div', { class: 'field' }, [el('label', { for: 'email', text: 'Email' }), email]),
    el('div', { class: 'field' }, [el('label', { for: 'password', text: 'Password' }), password]),
    error,
    button,
  ]);
  const main = el('main', { class: 'sign-in-page', id: 'main' }, [
    el('h1', { text: 'Sign in to the agentry console' }),
    notice ? el('p', { class: 'notice', role: 'status', text: notice }) : null,
    form,
  ]);
  root.replaceChildren(main);
  document.title = 'Sign in · agentry console';
  email.focus();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    error.hidden = true;
    try {
      onSignedIn(await call('POST', '/sessions', { email: email.value.trim(), password: password.value }, { signIn: true }));
    } catch (e) {
      error.textContent = e.message;
      error.hidden = false;
      password.value = '';
      password.focus();
    } finally {
      button.disabled = false;
    }
  });
}
