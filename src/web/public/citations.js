// A project's citations: the cited domains with their verification statuses and source types
// (GET citations, under the range and the filters), and citation health (GET citation-health,
// over the range only: per engine, the hallucinated and broken shares with Wilson intervals, and
// the brand's own pages engines cite that do not exist).
import { api } from './api.js';
import { bindFilters, engines, failure, filterQuery, latest, loadFilterChoices, rangeOf, readAddress, startShell, writeAddress } from './shell.js';
import { $, badge, count, emptyRow, h, longDay, numCell, outLink, shareWithInterval, td } from './ui.js';

const state = readAddress();
const SOURCE_TYPES = { owned: 'Owned', competitor: 'Competitor', editorial: 'Editorial', ugc: 'User-generated', corporate: 'Corporate', institutional: 'Institutional', review: 'Review site', social: 'Social', other: 'Other' };

async function start() {
  const { project } = await startShell('citations', state);
  writeAddress(state, 'citations');
  if (project) document.title = `Citations · ${project.name} · Sightline`;
  bindFilters(state, () => {
    writeAddress(state, 'citations');
    load().catch(fail);
  });
  await Promise.all([load(), loadFilterChoices(state)]);
}

const load = latest(async (signal, isLatest) => {
  const base = `/api/v1/projects/${encodeURIComponent(state.projectId)}`;
  const [citations, health, list] = await Promise.all([
    api(`${base}/citations?${filterQuery(state)}`, { signal }),
    api(`${base}/citation-health?${new URLSearchParams(rangeOf(state))}`, { signal }),
    engines(),
  ]);
  if (!isLatest()) return;
  const labels = new Map(list.map((e) => [e.key, e.label]));
  renderDomains(citations.domains);
  renderHealth(health, labels);
});

function renderDomains(domains) {
  const body = $('domains').tBodies[0];
  if (!domains.length) return body.replaceChildren(emptyRow(11, 'No citations in this range for these filters.'));
  body.replaceChildren(
    ...domains.map((d) =>
      h(
        'tr',
        { 'data-domain': d.domain },
        h('th', { scope: 'row' }, d.domain),
        td(SOURCE_TYPES[d.sourceType] ?? d.sourceType),
        numCell(count(d.citedCount), `${count(d.totalCount)} with hallucinated ones`),
        numCell(count(d.statusCounts.verified)),
        numCell(count(d.statusCounts.broken)),
        numCell(count(d.statusCounts.hallucinated)),
        numCell(count(d.statusCounts.stale)),
        numCell(count(d.statusCounts.unchecked)),
        numCell(count(d.urls)),
        td((d.articleTypes ?? []).join(', ') || '—'),
        td(longDay(d.lastSeen)),
      ),
    ),
  );
}

function renderHealth(health, labels) {
  const { overall } = health;
  $('health-totals').replaceChildren(
    h('li', {}, h('strong', {}, count(overall.urls)), 'URLs cited'),
    h('li', {}, h('strong', {}, count(overall.checked)), 'with a conclusive status'),
    h('li', { 'data-share': 'hallucinated' }, h('strong', {}, shareWithInterval(overall.hallucinated)), `hallucinated (${count(overall.hallucinated.count)})`),
    h('li', { 'data-share': 'broken' }, h('strong', {}, shareWithInterval(overall.broken)), `broken (${count(overall.broken.count)})`),
  );
  const rows = health.engines.filter((e) => e.urls > 0);
  $('health').tBodies[0].replaceChildren(
    ...(rows.length
      ? rows.map((e) =>
          h(
            'tr',
            { 'data-engine': e.engine },
            h('th', { scope: 'row' }, labels.get(e.engine) ?? e.engine),
            numCell(count(e.urls)),
            numCell(count(e.checked)),
            numCell(shareWithInterval(e.hallucinated)),
            numCell(shareWithInterval(e.broken)),
            numCell(count(e.byStatus.verified)),
            numCell(count(e.byStatus.stale)),
            numCell(count(e.byStatus.unchecked)),
          ),
        )
      : [emptyRow(8, 'No citations in this range.')]),
  );
  $('missing').tBodies[0].replaceChildren(
    ...(health.missingOwnPages.length
      ? health.missingOwnPages.map((p) =>
          h(
            'tr',
            {},
            h('td', { class: 'wrap' }, outLink(p.url)),
            h('td', {}, badge(p.status)),
            numCell(count(p.citations)),
            td(p.engines.map((e) => labels.get(e) ?? e).join(', '), 'wrap'),
            td(longDay(p.lastSeen)),
            td(p.note ?? '—', 'wrap'),
          ),
        )
      : [emptyRow(6, 'None: every page of the brand that engines cite exists.')]),
  );
}

const fail = failure('the citations');

start().catch(fail);
