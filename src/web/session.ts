// Signing the window in: the one-time code of the link `loom serve --open` opened is traded for
// the session cookie (HttpOnly: no script here ever sees it) and removed from the address bar;
// a reloaded page asks for its session's CSRF value again; without a session, a form takes
// the token (sent once in a POST body, never kept by the page).
import type { WindowSession } from '../contracts/local-resources.ts';
import { api, ApiError, inWords } from './api.ts';
import { h } from './dom.ts';

/** Resolves with the session's CSRF value once the window is signed in. */
export async function signIn(root: HTMLElement): Promise<string> {
  const url = new URL(location.href);
  const code = url.searchParams.get('code');
  let problem: string | undefined;
  if (code !== null) {
    // Out of the address bar (and the history) before anything else happens.
    url.searchParams.delete('code');
    history.replaceState(null, '', url.pathname + url.search + url.hash);
    try {
      return (await api<WindowSession>('POST', '/api/session', { code })).csrf;
    } catch (error) {
      problem = inWords(error);
    }
  }
  try {
    return (await api<WindowSession>('GET', '/api/session')).csrf;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) problem = inWords(error);
  }
  return tokenForm(root, problem);
}

function tokenForm(root: HTMLElement, problem: string | undefined): Promise<string> {
  return new Promise((resolve) => {
    const input = h('input', { type: 'password', id: 'token', autocomplete: 'off', placeholder: 'API token', 'aria-label': 'API token' });
    const message = h('p', { class: 'sign-in-problem', role: 'alert' }, problem ?? '');
    const form = h(
      'form',
      { class: 'sign-in' },
      h('h1', {}, 'Loom'),
      h(
        'p',
        {},
        'Open this window with ',
        h('code', {}, 'loom serve --open'),
        ', or sign in with the API token (',
        h('code', {}, 'loom token'),
        ' prints it).',
      ),
      input,
      h('button', { type: 'submit' }, 'Sign in'),
      message,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const token = input.value.trim();
      input.value = '';
      api<WindowSession>('POST', '/api/session', { token })
        .then((session) => {
          form.parentElement?.remove();
          resolve(session.csrf);
        })
        .catch((error: unknown) => (message.textContent = inWords(error)));
    });
    root.replaceChildren(h('main', {}, form));
    input.focus();
  });
}
