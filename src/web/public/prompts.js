// Prompts and runs: the runs behind every number (GET runs: newest first, under the range and the
// filters, a status and a prompt; pages of 50 through nextCursor), and the project's prompts, each
// with its recent answers. `day` in the address (from a chart point or a change) narrows the runs
// to that day (from = to = day). A run opens its own page (run.js).
import { api } from './api.js';
import { bindPlan } from './sampling-plan.js';
import { bindFilters, engines, failure, filterQuery, latest, loadFilterChoices, pageHref, readAddress, startShell, writeAddress } from './shell.js';
import { $, badge, count, emptyRow, fillSelect, formatTime, h, longDay, numCell, td } from './ui.js';

/** "Nov 23, 17:59" (UTC, as the column says). */
const shortTime = (iso) => new Date(iso).toLocaleString('en', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'UTC' });

const OWN = ['status', 'promptId', 'day'];
const STATUSES = ['ok', 'no_answer', 'failed'];
const PAGE_SIZE = 25;
const RECENT = 5;

const state = readAddress(OWN);
if (!/^\d{4}-\d{2}-\d{2}$/.test(state.day)) state.day = '';
if (!STATUSES.includes(state.status)) state.status = '';

let labels = new Map();
let cursor = null;
let shown = 0;
/** Changes when the list is read afresh: a "more" page of an older list is dropped. */
let listToken = 0;

const own = () => ({ status: state.status, promptId: state.promptId, day: state.day });
const save = () => writeAddress(state, 'prompts', own());
/** The runs' query: the range (or the one day) and the filters, plus the status and the prompt. */
function runsQuery(extra = {}) {
  const base = { ...(state.status ? { status: state.status } : {}), ...(state.promptId ? { promptId: state.promptId } : {}), ...extra };
  const query = new URLSearchParams(filterQuery(state, base));
  if (state.day) {
    query.set('from', state.day);
    query.set('to', state.day);
  }
  return query.toString();
}
const runHref = (run) => pageHref(state.projectId, `/runs/${encodeURIComponent(run.id)}`, state, own());

async function start() {
  const { project } = await startShell('prompts', state);
  save();
  if (project) document.title = `Prompts & runs · ${project.name} · Sightline`;
  $('settings-link').href = pageHref(state.projectId, 'settings', state);
  $('run-status').value = state.status;
  bindFilters(state, (name) => {
    // Another range replaces the one day.
    if (name === 'range') state.day = '';
    save();
    load().catch(fail);
  });
  $('filters').addEventListener('change', (event) => {
    if (event.target.name !== 'status' && event.target.name !== 'promptId') return;
    state[event.target.name] = event.target.value;
    save();
    load().catch(fail);
  });
  $('clear-day').addEventListener('click', () => {
    state.day = '';
    save();
    load().catch(fail);
  });
  $('more-runs').addEventListener('click', () => more().catch(fail));
  labels = new Map((await engines()).map((e) => [e.id, e.label]));
  await Promise.all([load(), loadPrompts(), loadFilterChoices(state), bindPlan(state.projectId)]);
}

const load = latest(async (signal, isLatest) => {
  $('day-chip').hidden = !state.day;
  $('day-text').textContent = state.day ? `Runs of ${longDay(state.day)} only` : '';
  const data = await api(`/api/v1/projects/${encodeURIComponent(state.projectId)}/runs?${runsQuery({ limit: PAGE_SIZE })}`, { signal });
  if (!isLatest()) return;
  listToken++;
  shown = 0;
  $('runs').tBodies[0].replaceChildren();
  append(data);
});

async function more() {
  if (!cursor) return;
  const token = listToken;
  const button = $('more-runs');
  button.disabled = true;
  try {
    const data = await api(`/api/v1/projects/${encodeURIComponent(state.projectId)}/runs?${runsQuery({ limit: PAGE_SIZE, cursor })}`);
    if (token === listToken) append(data);
  } finally {
    button.disabled = false;
  }
}

function append({ runs, nextCursor }) {
  const body = $('runs').tBodies[0];
  cursor = nextCursor;
  shown += runs.length;
  if (!shown) body.replaceChildren(emptyRow(7, state.day ? 'No runs that day for these filters.' : 'No runs in this range for these filters.'));
  else body.append(...runs.map(runRow));
  $('more-runs').hidden = !nextCursor;
  $('runs-count').textContent = shown ? `${count(shown)} run${shown === 1 ? '' : 's'} shown${nextCursor ? '; more below' : ', all of them'}.` : '';
}

function names(run) {
  if (!run.mentions.length) return h('span', { class: 'muted' }, run.status === 'ok' ? 'none' : '—');
  return h('span', {}, ...run.mentions.flatMap((m, i) => [i ? ', ' : '', m.subjectType === 'brand' ? h('strong', {}, m.name) : m.name]));
}

function runRow(run) {
  return h(
    'tr',
    { 'data-run-id': run.id, 'data-day': run.day, 'data-status': run.status },
    h('td', {}, h('a', { href: runHref(run), title: formatTime(run.ranAt) }, h('time', { datetime: run.ranAt }, shortTime(run.ranAt)))),
    td(run.prompt, 'wrap'),
    td(labels.get(run.engineId) ?? run.engine),
    td(run.location ?? '—'),
    h('td', {}, badge(run.status, run.status === 'no_answer' ? 'no answer' : run.status)),
    h('td', {}, names(run)),
    numCell(count(run.citationCount)),
  );
}

async function loadPrompts() {
  const { prompts } = await api(`/api/v1/projects/${encodeURIComponent(state.projectId)}/prompts`);
  fillSelect($('prompt-filter'), prompts.map((p) => ({ value: p.id, label: p.text.length > 60 ? `${p.text.slice(0, 59)}…` : p.text })), state.promptId);
  const list = $('prompts');
  if (!prompts.length) {
    list.replaceChildren(h('li', { class: 'muted' }, 'No prompts yet: add them in the settings.'));
    return;
  }
  list.replaceChildren(...prompts.map(promptItem));
}

function promptItem(prompt) {
  const recent = h('ol', { class: 'recent plain small' });
  const details = h(
    'details',
    { 'data-prompt-id': prompt.id },
    h(
      'summary',
      {},
      h('span', { class: 'prompt-text' }, prompt.text),
      ' ',
      badge(prompt.cadence),
      prompt.branded ? h('span', { class: 'tag' }, 'branded') : null,
      h('span', { class: 'muted small' }, ` ${prompt.topic ?? 'no topic'} · ${prompt.engines.length} engine${prompt.engines.length === 1 ? '' : 's'} · ${prompt.locations.length ? prompt.locations.join(', ') : 'default location'} · ${prompt.samples} sample${prompt.samples === 1 ? '' : 's'} a cycle`),
    ),
    h('h3', { class: 'small' }, 'Recent answers'),
    recent,
    h('p', { class: 'small' }, h('a', { href: pageHref(state.projectId, 'prompts', state, { promptId: prompt.id }) }, 'All runs of this prompt')),
  );
  let loaded = false;
  details.addEventListener('toggle', () => {
    if (!details.open || loaded) return;
    loaded = true;
    recent.replaceChildren(h('li', { class: 'muted' }, 'Loading…'));
    api(`/api/v1/projects/${encodeURIComponent(state.projectId)}/runs?${filterQuery(state, { promptId: prompt.id, limit: String(RECENT) })}`)
      .then(({ runs }) => {
        recent.replaceChildren(
          ...(runs.length
            ? runs.map((run) =>
                h(
                  'li',
                  { 'data-run-id': run.id },
                  h('a', { href: runHref(run) }, `${longDay(run.day)}, ${labels.get(run.engineId) ?? run.engine}${run.location ? `, ${run.location}` : ''}`),
                  ' ',
                  badge(run.status, run.status === 'no_answer' ? 'no answer' : run.status),
                  ' ',
                  run.status === 'ok' ? (run.mentions.length ? `names ${run.mentions.map((m) => m.name).join(', ')}` : 'names no tracked subject') : '',
                ),
              )
            : [h('li', { class: 'muted' }, 'No answers in this range for these filters.')]),
        );
      })
      .catch((error) => {
        loaded = false;
        recent.replaceChildren(h('li', { class: 'error' }, `Could not load its answers: ${error.message}`));
      });
  });
  return h('li', {}, details);
}

const fail = failure('the runs');

start().catch(fail);
