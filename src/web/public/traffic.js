// A project's AI traffic (GET traffic, the range only): crawler hits and AI-referred visits by
// platform, the pages most crawled and visited, and the days. The API gives each day's ten top
// pages; the page tables add those up over the range, which the page says.
import { api } from './api.js';
import { bindFilters, failure, latest, rangeOf, readAddress, startShell, writeAddress } from './shell.js';
import { $, count, emptyRow, h, longDay, numCell, td } from './ui.js';

const state = readAddress();

async function start() {
  const { project } = await startShell('traffic', state);
  writeAddress(state, 'traffic');
  if (project) document.title = `Traffic · ${project.name} · Sightline`;
  bindFilters(state, () => {
    writeAddress(state, 'traffic');
    load().catch(fail);
  });
  await load();
}

/** Adds `n` under `key` (a Map of key to { ...fields, n }). */
function tally(map, key, fields, n) {
  const entry = map.get(key) ?? { ...fields, n: 0 };
  entry.n += n;
  map.set(key, entry);
}

const sorted = (map) => [...map.values()].sort((a, b) => b.n - a.n || String(a.label).localeCompare(String(b.label)));

const load = latest(async (signal, isLatest) => {
  const data = await api(`/api/v1/projects/${encodeURIComponent(state.projectId)}/traffic?${new URLSearchParams(rangeOf(state))}`, { signal });
  if (!isLatest()) return;
  const crawlers = new Map();
  const visits = new Map();
  const crawled = new Map();
  const visited = new Map();
  let hits = 0;
  let aiVisits = 0;
  for (const day of data.days) {
    hits += day.crawlerHits;
    aiVisits += day.aiVisits;
    for (const c of day.crawlers) tally(crawlers, `${c.platform}|${c.bot}`, { label: c.platformLabel, bot: c.bot }, c.hits);
    for (const v of day.visits) tally(visits, v.platform, { label: v.platformLabel }, v.visits);
    for (const p of day.topCrawledPages) tally(crawled, p.path, { label: p.path }, p.hits);
    for (const p of day.topVisitedPages) tally(visited, p.path, { label: p.path }, p.visits);
  }
  $('traffic-totals').replaceChildren(
    h('li', { 'data-total': 'crawlerHits' }, h('strong', {}, count(hits)), 'AI crawler hits'),
    h('li', { 'data-total': 'aiVisits' }, h('strong', {}, count(aiVisits)), 'visits from AI answers'),
  );
  fill('crawlers', 3, sorted(crawlers).map((c) => [h('th', { scope: 'row' }, c.label), td(c.bot), numCell(count(c.n))]), 'No AI crawler hits in this range.');
  fill('visits', 2, sorted(visits).map((v) => [h('th', { scope: 'row' }, v.label), numCell(count(v.n))]), 'No visits from AI answers in this range.');
  fill('crawled-pages', 2, sorted(crawled).slice(0, 10).map((p) => [td(p.label, 'wrap url'), numCell(count(p.n))]), 'No pages crawled in this range.');
  fill('visited-pages', 2, sorted(visited).slice(0, 10).map((p) => [td(p.label, 'wrap url'), numCell(count(p.n))]), 'No pages visited in this range.');
  const active = data.days.filter((d) => d.crawlerHits || d.aiVisits).reverse();
  fill('traffic-days', 3, active.map((d) => [h('th', { scope: 'row' }, h('time', { datetime: d.day }, longDay(d.day))), numCell(count(d.crawlerHits)), numCell(count(d.aiVisits))]), 'No traffic in this range. Send server logs to the ingest endpoint, or add the beacon to the site.');
});

function fill(id, columns, rows, empty) {
  $(id).tBodies[0].replaceChildren(...(rows.length ? rows.map((cells) => h('tr', {}, ...cells)) : [emptyRow(columns, empty)]));
}

const fail = failure('the traffic');

start().catch(fail);
