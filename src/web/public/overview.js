// A project's overview: the visibility chart and the ranking, under a range switch and the filters.
// Every number comes from the public read API (/api/v1), read with the session cookie. The
// state lives in the address (shell.js); a chart point opens that day's runs.
import { api } from './api.js';
import { drawChart, formatDay, subjectColor } from './chart.js';
import { bindFilters, engines, failure, filterQuery, latest, loadFilterChoices, pageHref, rangeOf, readAddress, startShell, status, writeAddress } from './shell.js';
import { $, fixed, swatch } from './ui.js';

const VISIBILITY_KINDS = new Set(['visibility_gained', 'visibility_dropped']);

const state = readAddress();
let drawn = null;

async function start() {
  const { projects, project } = await startShell('overview', state);
  if (!projects.length) {
    status('');
    $('no-project').hidden = false;
    $('main').removeAttribute('aria-busy');
    return;
  }
  writeAddress(state, 'overview');
  if (project) {
    $('title').textContent = project.name;
    document.title = `${project.name} · Sightline`;
  }
  bindFilters(state, () => {
    writeAddress(state, 'overview');
    load().catch(fail);
  });

  // A point opens the runs of its day, under the same filters: the drill-down behind the number.
  $('chart').addEventListener('click', (event) => {
    const point = event.target.closest('circle.point');
    if (point) location.assign(pageHref(state.projectId, 'prompts', state, { day: point.dataset.day }));
  });

  new ResizeObserver(() => {
    if (drawn && Math.abs($('chart').clientWidth - drawn.width) > 2) render(drawn.data);
  }).observe($('chart'));

  await Promise.all([load(), loadFilterChoices(state)]);
}

/** Reads what the chart and the table show, for the current filters; a newer load wins over an older one. */
const load = latest(async (signal, isLatest) => {
  const base = `/api/v1/projects/${encodeURIComponent(state.projectId)}`;
  const range = rangeOf(state);
  const query = (extra) => filterQuery(state, extra);
  const [ranking, brand, changes, list] = await Promise.all([
    api(`${base}/visibility/ranking?${query()}`, { signal }),
    api(`${base}/visibility/timeseries?${query()}`, { signal }),
    api(`${base}/changes?${new URLSearchParams(range)}`, { signal }),
    engines(),
  ]);
  const labels = new Map(list.map((e) => [e.id, e.label]));
  const competitors = ranking.rows.filter((r) => r.subjectType === 'competitor');
  const series = await Promise.all(
    competitors.map((c) => api(`${base}/visibility/timeseries?${query({ subjectType: 'competitor', subjectId: c.subjectId })}`, { signal })),
  );
  if (!isLatest()) return;
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
  $('runs-link').href = pageHref(state.projectId, 'prompts', state);
  render({ days: brand.series.map((p) => p.day), subjects, events, narrowed, rows: ranking.rows, colors, range });
});

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
        cell(row.sentiment === null ? `— (n=${row.sentimentCount})` : `${fixed(row.sentiment)} (n=${row.sentimentCount})`),
      );
      return tr;
    }),
  );
}

const fail = failure('the overview');

start().catch(fail);
