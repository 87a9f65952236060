// The console's entry: the login form, the header, and the routes (#/, #/vr/N, #/create, #/host,
// #/topology, #/history). Views render into #view and return a function that undoes what they started.
import { api, clearCredentials, setCredentials, whenUnauthorized } from './api.js';
import * as data from './store.js';
import { store, subscribe } from './store.js';
import { renderList } from './list.js';
import { renderRouter } from './router.js';
import { renderCreate } from './create.js';
import { renderHost } from './host.js';
import { renderTopology } from './topology.js';
import { renderHistory } from './history.js';

const $ = (id) => document.getElementById(id);
const ROUTES = [
  [/^\/?$/, renderList, 'list'],
  [/^\/vr\/(\d+)$/, renderRouter, 'list'],
  [/^\/create$/, renderCreate, 'create'],
  [/^\/host$/, renderHost, 'host'],
  [/^\/topology$/, renderTopology, 'topology'],
  [/^\/history$/, renderHistory, 'history'],
];
let cleanup = null;
let currentPath = null;

$('login-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const user = $('login-user').value;
  const password = $('login-password').value;
  const error = $('login-error');
  error.textContent = '';
  performance.mark('vr:login-submitted');
  setCredentials(user, password);
  let session;
  try {
    session = await api('GET', 'session');
  } catch (problem) {
    clearCredentials();
    error.textContent = problem.status === 401 ? 'Wrong user name or password.' : problem.message;
    $('login-password').focus();
    return;
  }
  $('login-password').value = '';
  performance.mark('vr:session');
  await enter(session);
});

async function enter(session) {
  $('login').hidden = true;
  $('view').hidden = false;
  $('nav').hidden = false;
  $('session').hidden = false;
  $('who').textContent = session.user + ' · ' + session.role + (session.tenant ? ' · ' + session.tenant : '');
  document.body.classList.toggle('read-only', session.role !== 'operator');
  for (const a of document.querySelectorAll('[data-write]')) a.hidden = session.role !== 'operator';
  currentPath = null;
  await data.start(session);
  route();
}

function leave(message) {
  data.stop();
  clearCredentials();
  if (cleanup) cleanup();
  cleanup = null;
  $('view').replaceChildren();
  $('view').hidden = true;
  $('nav').hidden = true;
  $('session').hidden = true;
  $('login').hidden = false;
  $('login-error').textContent = message || '';
  $('login-user').focus();
}

$('logout').addEventListener('click', () => leave());
whenUnauthorized(() => leave('Your credentials are no longer accepted: sign in again.'));

subscribe((change) => {
  if (change.kind !== 'live') return;
  const live = $('live');
  live.className = 'live live-' + store.live;
  live.textContent = store.live === 'live' ? 'Live' : 'Reconnecting…';
  live.title = store.liveProblem ? 'Live updates stopped: ' + store.liveProblem : '';
});

/** The route part of the hash, without its query (#/?name=x keeps the list's filter). */
function path() {
  return location.hash.replace(/^#/, '').split('?')[0] || '/';
}

function route() {
  if (!store.session) return;
  const p = path();
  if (p === currentPath) return;
  currentPath = p;
  if (cleanup) cleanup();
  cleanup = null;
  const view = $('view');
  view.replaceChildren();
  for (const [pattern, render, nav] of ROUTES) {
    const m = p.match(pattern);
    if (!m) continue;
    for (const a of document.querySelectorAll('#nav a')) {
      if (a.dataset.route === nav) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    cleanup = render(view, m.slice(1)) || null;
    // Keyboard and screen-reader users land on the new page's heading.
    const heading = view.querySelector('h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
    return;
  }
  location.hash = '#/';
}

window.addEventListener('hashchange', route);
document.addEventListener('keydown', (e) => {
  // "/" jumps to the page's filter, as in most consoles.
  if (e.key === '/' && !/^(INPUT|SELECT|TEXTAREA)$/.test(document.activeElement.tagName)) {
    const filter = document.querySelector('[data-filter]');
    if (filter) {
      e.preventDefault();
      filter.focus();
    }
  }
});
$('login-user').focus();
