// A project's overview: the visibility chart and the ranking, under a range switch and the filters.
// Every number comes from the public read API (/api/v1), read with the session cookie. The
// state lives in the address (/projects/<id>?range=&engineId=&topicId=&location=&branded=).
import { api, ApiError } from './api.js';
import { drawChart, formatDay, subjectColor } from './chart.js';

const $ = (id) => document.getElementById(id);
const TODAY = document.querySelector('meta[name="sightline-today"]').content;
const RANGES = [7, 28, 90];
const FILTERS = ['engineId', 'topicId', 'location', 'branded'];
const VISIBILITY_KINDS = new Set(['visibility_gained', 'visibility_dropped']);

const state = { projectId: null, range: 28, engineId: '', topicId: '', location: '', branded: '' };
let session = null;
let generation = 0;
let inflight = null;
let drawn = null;
/** The engines' labels by id, once read: change events name their engine by label. */
let engineLabels = Promise.resolve(new Map());

function readAddress() {
  const match = /^\/projects\/([^/]+)\/?$/.exec(location.pathname);
  state.projectId = match ? decodeURIComponent(match[1]) : null;
  const query = new URLSearchParams(location.search);
  const range = Number(query.get('range'));
  state.range = RANGES.includes(range) ? range : 28;
  for (const key of FILTERS) state[key] = query.get(key) ?? '';
}

function writeAddress() {
  const query = new URLSearchParams();
  if (state.range !== 28) query.set('range', String(state.range));
  for (const key of FILTERS) if (state[key]) query.set(key, state[key]);
  const search = query.toString();
  history.replaceState(null, '', `/projects/${encodeURIComponent(state.projectId)}${search ? `?${search}` : ''}`);
}

function addDays(day, n) {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + n);
  return date.toISOString().slice(0, 10);
}

const rangeOf = () => ({ from: addDays(TODAY, -(state.range - 1)), to: TODAY });

function query(extra = {}) {
  const q = new URLSearchParams(rangeOf());
  for (const key of FILTERS) if (state[key]) q.set(key, state[key]);
  for (const [key, value] of Object.entries(extra)) q.set(key, value);
  return q.toString();
}

function status(message, kind = '') {
  const node = $('status');
  node.textContent = message;
  node.className = `status ${kind}`.trim();
}

function option(value, label) {
  const node = document.createElement('option');
  node.value = value;
  node.textContent = label;
  return node;
}

/** Fills a filter's choices after its "all" option; a value from the address that is not offered stays selectable. */
function fillSelect(select, choices, value) {
  const all = select.options[0];
  select.replaceChildren(all, ...choices.map((c) => option(c.value, c.label)));
  if (value && !choices.some((c) => c.value === value)) select.append(option(value, value));
  select.value = value;
}

function syncForm() {
  for (const input of document.querySelectorAll('input[name="range"]')) input.checked = Number(input.value) === state.range;
  for (const key of FILTERS) document.querySelector(`[name="${key}"]`).value = state[key];
}

async function start() {
  readAddress();
  syncForm();
  $('sign-out').addEventListener('click', signOut);
  const sessionLoaded = api('/app/session').then((s) => {
    session = s;
    $('who').textContent = s.email;
  });
  const engines = api('/api/v1/engines');
  engineLabels = engines.then(({ engines: list }) => new Map(list.map((e) => [e.id, e.label])));
  const { projects } = await api('/api/v1/projects');
  if (!state.projectId) {
    if (!projects.length) {
      status('This workspace has no project yet.');
      return;
    }
    state.projectId = projects[0].id;
    writeAddress();
  }
  const select = $('project');
  select.replaceChildren(...projects.map((p) => option(p.id, p.name)));
  if (!projects.some((p) => p.id === state.projectId)) select.append(option(state.projectId, 'Unknown project'));
  select.value = state.projectId;
  select.disabled = false;
  // Another project is another page: opened by the button, not by moving through the list (WCAG 3.2.2).
  $('open-project').disabled = false;
  $('project-pick').addEventListener('submit', (event) => {
    event.preventDefault();
    if (select.value !== state.projectId) location.assign(`/projects/${encodeURIComponent(select.value)}${location.search}`);
  });
  const project = projects.find((p) => p.id === state.projectId);
  if (project) {
    $('title').textContent = project.name;
    document.title = `${project.name} · Sightline`;
  }

  $('filters').addEventListener('change', (event) => {
    const target = event.target;
    if (target.name === 'range') state.range = Number(target.value);
    else if (FILTERS.includes(target.name)) state[target.name] = target.value;
    else return;
    writeAddress();
    load().catch(fail);
  });
  $('filters').addEventListener('submit', (event) => event.preventDefault());

  new ResizeObserver(() => {
    if (drawn && Math.abs($('chart').clientWidth - drawn.width) > 2) render(drawn.data);
  }).observe($('chart'));

  await Promise.all([load(), loadChoices(engines), sessionLoaded]);
}

async function loadChoices(enginesLoaded) {
  const base = `/api/v1/projects/${encodeURIComponent(state.projectId)}`;
  const [{ engines }, { topics }, { locations }] = await Promise.all([
    enginesLoaded,
    api(`${base}/topics`),
    api(`/app/web/projects/${encodeURIComponent(state.projectId)}/locations`),
  ]);
  fillSelect($('engine'), engines.map((e) => ({ value: e.id, label: e.label })), state.engineId);
  fillSelect($('topic'), topics.map((t) => ({ value: t.id, label: t.name })), state.topicId);
  fillSelect($('location'), locations.map((l) => ({ value: l, label: l })), state.location);
}

/** Reads what the chart and the table show, for the current filters; a newer load wins over an older one. */
async function load() {
  const mine = ++generation;
  inflight?.abort();
  inflight = new AbortController();
  const { signal } = inflight;
  status('Loading…');
  $('main').setAttribute('aria-busy', 'true');
  const base = `/api/v1/projects/${encodeURIComponent(state.projectId)}`;
  const range = rangeOf();
  try {
    const [ranking, brand, changes, labels] = await Promise.all([
      api(`${base}/visibility/ranking?${query()}`, { signal }),
      api(`${base}/visibility/timeseries?${query()}`, { signal }),
      api(`${base}/changes?${new URLSearchParams(range)}`, { signal }),
      engineLabels,
    ]);
    const competitors = ranking.rows.filter((r) => r.subjectType === 'competitor');
    const series = await Promise.all(
      competitors.map((c) => api(`${base}/visibility/timeseries?${query({ subjectType: 'competitor', subjectId: c.subjectId })}`, { signal })),
    );
    if (mine !== generation) return;
    const colors = new Map(ranking.rows.map((row, i) => [row.subjectId, subjectColor(row.color, i)]));
    const brandRow = ranking.rows.find((r) => r.subjectType === 'brand');
    const subjects = [
      { id: brand.subject.subjectId, type: 'brand', name: brandRow ? brandRow.name : 'Brand', color: colors.get(brand.subject.subjectId) ?? subjectColor(null, 0), series: brand.series, band: true },
      ...competitors.map((c, i) => ({ id: c.subjectId, type: 'competitor', name: c.name, color: colors.get(c.subjectId), series: series[i].series, band: false })),
    ];
    const byName = new Map(ranking.rows.map((r) => [r.name, colors.get(r.subjectId)]));
    // Changes are detected per engine (or across all) over all topics, locations and prompts; the
    // chart marks those of the series it shows, and none when another filter narrows it.
    const engine = state.engineId ? (labels.get(state.engineId) ?? state.engineId) : null;
    const narrowed = Boolean(state.topicId || state.location || state.branded);
    const events = changes.events
      .filter((e) => !narrowed && VISIBILITY_KINDS.has(e.kind) && (e.engineLabel ?? null) === engine)
      .map((e) => ({ day: e.day, kind: e.kind, summary: e.summary, color: byName.get(e.subjectName) ?? '#374151' }));
    render({ days: brand.series.map((p) => p.day), subjects, events, narrowed, rows: ranking.rows, colors, range });
    status('');
  } catch (error) {
    if (error.name === 'AbortError') return;
    throw error;
  } finally {
    if (mine === generation) $('main').removeAttribute('aria-busy');
  }
}

function render(data) {
  const { days, subjects, events, narrowed, rows, colors, range } = data;
  const chart = $('chart');
  const sampled = subjects.some((s) => s.series.some((p) => p.sampleSize > 0));
  const title = `Visibility from ${formatDay(range.from, { year: 'numeric', month: 'short', day: 'numeric' })} to ${formatDay(range.to, { year: 'numeric', month: 'short', day: 'numeric' })}, 0 to 100%`;
  drawChart(chart, { days, subjects, events, title });
  if (!sampled) {
    const note = document.createElement('p');
    note.className = 'muted empty';
    note.textContent = 'No runs in this range for these filters.';
    chart.append(note);
  }
  drawn = { width: chart.clientWidth, data };
  renderLegend(subjects);
  renderEvents(events, days, narrowed);
  renderRanking(rows, colors);
}

function swatch(color, hollow = false) {
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 12 12');
  svg.setAttribute('class', 'swatch');
  svg.setAttribute('aria-hidden', 'true');
  const dot = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
  for (const [k, v] of Object.entries({ cx: 6, cy: 6, r: hollow ? 4 : 5, fill: hollow ? '#ffffff' : color, stroke: color, 'stroke-width': 2 })) dot.setAttribute(k, String(v));
  svg.append(dot);
  return svg;
}

function renderLegend(subjects) {
  $('legend').replaceChildren(
    ...subjects.map((s) => {
      const item = document.createElement('li');
      item.append(swatch(s.color), document.createTextNode(s.type === 'brand' ? `${s.name} (brand, with band)` : s.name));
      return item;
    }),
  );
}

function renderEvents(events, days, narrowed) {
  const inRange = new Set(days);
  if (narrowed) {
    const note = document.createElement('li');
    note.textContent = 'Changes are detected over all topics, locations and prompts: clear those filters to see them marked.';
    $('events').replaceChildren(note);
    return;
  }
  const shown = events.filter((e) => inRange.has(e.day));
  if (!shown.length) {
    const none = document.createElement('li');
    none.textContent = 'No significant change in this range.';
    $('events').replaceChildren(none);
    return;
  }
  $('events').replaceChildren(
    ...shown
      .map((e) => {
        const item = document.createElement('li');
        const marker = document.createElement('span');
        marker.className = e.kind === 'visibility_gained' ? 'up' : 'down';
        marker.setAttribute('aria-hidden', 'true');
        marker.textContent = e.kind === 'visibility_gained' ? '▲' : '▼';
        const when = document.createElement('time');
        when.dateTime = e.day;
        when.textContent = formatDay(e.day);
        item.append(marker, when, document.createTextNode(` ${e.summary}`));
        return item;
      }),
  );
}

const fixed = (n, digits = 1) => (n === null || n === undefined ? null : n.toFixed(digits));

function cell(text, className = 'num', title) {
  const td = document.createElement('td');
  td.className = className;
  td.textContent = text;
  if (title) td.title = title;
  return td;
}

function renderRanking(rows, colors) {
  const body = $('ranking').tBodies[0];
  body.replaceChildren(
    ...rows.map((row) => {
      const tr = document.createElement('tr');
      tr.dataset.subjectId = row.subjectId;
      const name = document.createElement('th');
      name.scope = 'row';
      name.append(swatch(colors.get(row.subjectId)), document.createTextNode(row.name));
      if (row.subjectType === 'brand') {
        const tag = document.createElement('span');
        tag.className = 'tag';
        tag.textContent = 'brand';
        name.append(tag);
      }
      const visibility = row.visibility === null ? cell('withheld', 'num muted', row.rateWithheld) : cell(`${fixed(row.visibility)}%`);
      tr.append(
        name,
        cell(String(row.sampleSize)),
        visibility,
        cell(`${fixed(row.ciLow)}–${fixed(row.ciHigh)}%`),
        cell(row.shareOfVoice === null ? '—' : `${fixed(row.shareOfVoice)}%`),
        cell(row.avgPosition === null ? '—' : fixed(row.avgPosition)),
        cell(row.sentiment === null ? `— (n=${row.sentimentCount})` : `${fixed(row.sentiment, 0)} (n=${row.sentimentCount})`),
      );
      return tr;
    }),
  );
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

function fail(error) {
  if (error instanceof ApiError && error.status === 401) {
    // The session ended: this address now answers the sign-in page.
    location.reload();
    return;
  }
  if (error instanceof ApiError && (error.status === 404 || error.status === 400)) status('No such project in this workspace. Pick one above.', 'error');
  else if (error instanceof ApiError && error.status === 429) status(`Too many requests: try again in ${error.retryAfter || 60} seconds.`, 'error');
  else status(`Could not load the overview: ${error.message}`, 'error');
  $('main').removeAttribute('aria-busy');
}

start().catch(fail);
