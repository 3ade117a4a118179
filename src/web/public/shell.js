// What every signed-in page shares: the top bar (project picker, who, sign out), the navigation
// between a project's pages, the range and filters kept in the address, the status line, and what
// a failure says. The state lives in the address: /projects/<id>/<page>?range=&engineId=&topicId=
// &location=&branded= (plus a page's own keys). The navigation carries the range and the filters to
// every page, so they hold where they apply (changes and traffic use the range only; settings none)
// and come back when returning to a page that uses them.
import { api, ApiError } from './api.js';
import { $, fillSelect, option } from './ui.js';

export const TODAY = document.querySelector('meta[name="sightline-today"]').content;
export const RANGES = [7, 28, 90];
export const FILTERS = ['engineId', 'topicId', 'location', 'branded'];

/** Each page's address under /projects/<id>. */
const SUFFIX = { overview: '', citations: '/citations', changes: '/changes', traffic: '/traffic', prompts: '/prompts', settings: '/settings' };

let session = null;
let enginesLoaded = null;

/** The signed-in session ({ email, role, csrfToken, ... }), once read. */
export const currentSession = () => session;

/** The engines ({ id, key, label }), read once per page. */
export function engines() {
  enginesLoaded ??= api('/api/v1/engines').then((d) => d.engines);
  return enginesLoaded;
}

/** The state the address holds: the project, the range, the filters and the page's own keys (`own`). */
export function readAddress(own = []) {
  const match = /^\/projects\/([^/]+)/.exec(location.pathname);
  const query = new URLSearchParams(location.search);
  const range = Number(query.get('range'));
  const state = { projectId: match ? decodeURIComponent(match[1]) : null, range: RANGES.includes(range) ? range : 28 };
  for (const key of [...FILTERS, ...own]) state[key] = query.get(key) ?? '';
  return state;
}

/** The range and the filters, as the navigation carries them (28 days, the default, is left out). */
export function carried(state) {
  const query = new URLSearchParams();
  if (state.range !== 28) query.set('range', String(state.range));
  for (const key of FILTERS) if (state[key]) query.set(key, state[key]);
  return query;
}

/** A page of the project, with the range and filters carried and `extra` keys added. */
export function pageHref(projectId, page, state, extra = {}) {
  const query = state ? carried(state) : new URLSearchParams();
  for (const [key, value] of Object.entries(extra)) if (value !== '' && value !== null && value !== undefined) query.set(key, String(value));
  const search = query.toString();
  return `/projects/${encodeURIComponent(projectId)}${SUFFIX[page] ?? page}${search ? `?${search}` : ''}`;
}

/** Puts the state in the address (no new history entry) and the navigation's links. */
export function writeAddress(state, page, own = {}) {
  history.replaceState(null, '', pageHref(state.projectId, page, state, own));
  updateNav(state);
}

export function updateNav(state) {
  for (const link of document.querySelectorAll('nav.pages a[data-nav]')) {
    const page = link.dataset.nav;
    if (state.projectId) {
      link.href = pageHref(state.projectId, page, state);
      link.parentElement.hidden = false;
    } else {
      // No project yet: only the settings, where the first one is made.
      link.href = page === 'settings' ? '/settings' : '/';
      link.parentElement.hidden = page !== 'settings';
    }
  }
}

function addDays(day, n) {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + n);
  return date.toISOString().slice(0, 10);
}

/** The range as the API takes it, ending on the service's day. */
export const rangeOf = (state) => ({ from: addDays(TODAY, -(state.range - 1)), to: TODAY });

/** The query of an analytics read: the range and the filters, plus `extra`. */
export function filterQuery(state, extra = {}) {
  const query = new URLSearchParams(rangeOf(state));
  for (const key of FILTERS) if (state[key]) query.set(key, state[key]);
  for (const [key, value] of Object.entries(extra)) query.set(key, value);
  return query.toString();
}

export function status(message, kind = '') {
  const node = $('status');
  node.textContent = message;
  node.className = `status ${kind}`.trim();
}

/**
 * The top bar and the navigation, for `page`: reads the session and the projects, fills the picker
 * (another project opens the same page; a run's page opens the other project's runs). A state
 * without a project takes the first one. Returns { session, projects, project }.
 */
export async function startShell(page, state) {
  $('sign-out').addEventListener('click', signOut);
  // Another project is another page: opened by the button, not by moving through the list (WCAG 3.2.2).
  $('project-pick').addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = $('project').value;
    if (chosen && chosen !== state.projectId) location.assign(state.projectId ? pageHref(chosen, page === 'run' ? 'prompts' : page, state) : pageHref(chosen, 'settings'));
  });
  const [signedIn, { projects }, { workspaces }] = await Promise.all([api('/app/session'), api('/api/v1/projects'), api('/app/api/workspaces')]);
  session = signedIn;
  $('who').textContent = `${signedIn.email} (${signedIn.role})`;
  showWorkspaces(workspaces);
  if (!state.projectId && projects.length) state.projectId = projects[0].id;
  updateNav(state);
  const select = $('project');
  const project = projects.find((p) => p.id === state.projectId) ?? null;
  if (!projects.length) {
    select.replaceChildren(option('', 'No project yet'));
    return { session: signedIn, projects, project };
  }
  select.replaceChildren(...projects.map((p) => option(p.id, p.name)));
  if (!project && state.projectId) select.append(option(state.projectId, 'Unknown project'));
  select.value = state.projectId;
  select.disabled = false;
  $('open-project').disabled = false;
  return { session: signedIn, projects, project };
}

/**
 * The workspace switcher, for a person in more than one: the session moves (PATCH /app/session)
 * and the app opens the other workspace's first project. A button, not the list, switches.
 */
function showWorkspaces(workspaces) {
  if (workspaces.length < 2) return;
  const select = $('workspace-choice');
  select.replaceChildren(...workspaces.map((w) => option(w.id, `${w.name} (${w.role})`)));
  select.value = workspaces.find((w) => w.current)?.id ?? '';
  $('workspace-pick').hidden = false;
  $('workspace-pick').addEventListener('submit', async (event) => {
    event.preventDefault();
    if (workspaces.find((w) => w.current)?.id === select.value) return;
    const button = $('workspace-pick').querySelector('button');
    button.disabled = true;
    try {
      await switchWorkspace(select.value);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return location.reload();
      button.disabled = false;
      status(`Could not switch workspaces: ${error.message}.`, 'error');
    }
  });
}

/** A project made on this page, offered in the top bar's picker (enabled if it was empty). */
export function offerProject(id, name) {
  const select = $('project');
  if (select.disabled) select.replaceChildren();
  select.append(option(id, name));
  select.disabled = false;
  $('open-project').disabled = false;
}

/** Moves the session to another of the person's workspaces and opens it (at `to`). */
export async function switchWorkspace(workspaceId, to = '/') {
  await api('/app/session', { method: 'PATCH', body: { workspaceId }, csrf: session.csrfToken });
  location.assign(to);
}

/** The range and filter form, if the page has one: shows the state and reports each change. */
export function bindFilters(state, onChange) {
  const form = $('filters');
  if (!form) return;
  syncFilters(state);
  form.addEventListener('change', (event) => {
    const target = event.target;
    if (target.name === 'range') state.range = Number(target.value);
    else if (FILTERS.includes(target.name)) state[target.name] = target.value;
    else return;
    onChange(target.name);
  });
  form.addEventListener('submit', (event) => event.preventDefault());
}

export function syncFilters(state) {
  for (const input of document.querySelectorAll('input[name="range"]')) input.checked = Number(input.value) === state.range;
  for (const key of FILTERS) {
    const field = document.querySelector(`#filters [name="${key}"]`);
    if (field) field.value = state[key];
  }
}

/** The engine, topic and location choices (for the pages with those filters). */
export async function loadFilterChoices(state) {
  if (!$('engine')) return;
  const [list, { topics }, { locations }] = await Promise.all([
    engines(),
    api(`/api/v1/projects/${encodeURIComponent(state.projectId)}/topics`),
    api(`/app/web/projects/${encodeURIComponent(state.projectId)}/locations`),
  ]);
  fillSelect($('engine'), list.map((e) => ({ value: e.id, label: e.label })), state.engineId);
  fillSelect($('topic'), topics.map((t) => ({ value: t.id, label: t.name })), state.topicId);
  fillSelect($('location'), locations.map((l) => ({ value: l, label: l })), state.location);
}

/**
 * A page's load, made safe to call again: a newer call aborts the older one's requests and wins.
 * `run(signal, isLatest)` reads and draws; `<main>` is aria-busy while it runs.
 */
export function latest(run) {
  let generation = 0;
  let inflight = null;
  return async (...args) => {
    const mine = ++generation;
    inflight?.abort();
    inflight = new AbortController();
    status('Loading…');
    $('main').setAttribute('aria-busy', 'true');
    try {
      await run(inflight.signal, () => mine === generation, ...args);
      if (mine === generation) status('');
    } catch (error) {
      if (error.name === 'AbortError') return;
      throw error;
    } finally {
      if (mine === generation) $('main').removeAttribute('aria-busy');
    }
  };
}

async function signOut() {
  const button = $('sign-out');
  button.disabled = true;
  try {
    const current = session ?? (await api('/app/session'));
    await api('/app/session', { method: 'DELETE', csrf: current.csrfToken });
  } catch (error) {
    // Already signed out (401) is what was asked; anything else is said.
    if (!(error instanceof ApiError && error.status === 401)) {
      button.disabled = false;
      status(`Signing out failed: ${error.message}`, 'error');
      return;
    }
  }
  location.assign('/');
}

/** What a failed load says; `what` names the page ("the citations"). A lost session reloads to the sign-in page. */
export function failure(what, notFound = 'No such project in this workspace. Pick one above.') {
  return (error) => {
    if (error instanceof ApiError && error.status === 401) {
      // The session ended: this address now answers the sign-in page.
      location.reload();
      return;
    }
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) status(notFound, 'error');
    else if (error instanceof ApiError && error.status === 429) status(`Too many requests: try again in ${error.retryAfter || 60} seconds.`, 'error');
    else status(`Could not load ${what}: ${error.message}`, 'error');
    $('main').removeAttribute('aria-busy');
  };
}
