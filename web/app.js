// The home page's shell: the sign-in form or the signed-in user, the
// sections, and the hash routes (#/map/<id>, #/datasets, …) that pick a view.
// Views live in views/, one file each; each draws into the main region.
import { apiScopes, hasRoute, request, signedIn, signIn, signOut } from './api.js';
import { finishSignIn, startSignIn } from './oidc.js';
import './picture.js';
import { fail, h, say } from './ui.js';
import { composer } from './views/composer.js';
import { datasetPage, datasets } from './views/datasets.js';
import { mapPage } from './views/map.js';
import { gallery } from './views/maps.js';
import { sheets } from './views/sheets.js';
import { templates } from './views/templates.js';

/** Hash routes: a pattern and its view; views given the route's ID. */
const ROUTES = [
  [/^#\/map\/(\w+)$/, mapPage],
  [/^#\/datasets$/, datasets],
  [/^#\/dataset\/(\w+)$/, datasetPage],
  [/^#\/sheets$/, sheets],
  [/^#\/templates$/, templates],
  [/^#\/compose(?:\/(\w+))?$/, composer],
];

async function route() {
  const hash = location.hash || '#/';
  for (const [pattern, view] of ROUTES) {
    const m = pattern.exec(hash);
    if (!m) continue;
    if (!signedIn() && view !== mapPage) return gallery();
    return view(m[1]);
  }
  return gallery();
}

function signInForm() {
  const username = h('input', { id: 'username', name: 'username', autocomplete: 'username', required: true });
  const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h('form', { class: 'signin', 'aria-label': 'Sign in' },
    h('label', { for: 'username' }, 'Username'), username,
    h('label', { for: 'password' }, 'Password'), password,
    button);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    button.disabled = true;
    try {
      await signIn(username.value, password.value);
      say(`Signed in as ${username.value}.`);
      await shell();
    } catch (error) {
      fail(error);
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

/** Without the password grant (the OpenID backend): the provider's own sign-in page. */
function providerSignIn() {
  const button = h('button', { type: 'button', 'aria-describedby': 'signin-how' }, 'Sign in');
  button.addEventListener('click', () => apiScopes().then(startSignIn).catch(fail));
  return h('div', { class: 'signin' }, h('span', { id: 'signin-how', hidden: true }, "on the service's sign-in page"), button);
}

async function account() {
  const box = document.getElementById('account');
  if (!signedIn()) return box.replaceChildren((await hasRoute('POST', '/api/v1/auth/token')) ? signInForm() : providerSignIn());
  let name = '';
  try {
    name = (await request('/api/v1/current_user/')).username;
  } catch {
    // a token without the read scope: still signed in
  }
  box.replaceChildren(h('span', { class: 'who' }, name ? `Signed in as ${name}` : 'Signed in'),
    h('button', {
      type: 'button', onclick: () => {
        signOut();
        say('Signed out.');
        shell();
      },
    }, 'Sign out'));
}

async function shell() {
  document.getElementById('nav').hidden = !signedIn();
  await Promise.all([account(), route()]);
}

window.addEventListener('hashchange', () => route());
finishSignIn().then((done) => done && say('Signed in.'), fail).finally(shell);
window.addEventListener('mts-signed-out', () => {
  say('Your session has ended; sign in again.', 'error');
  shell();
});
