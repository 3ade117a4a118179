// One run (GET runs/{runId}): its answer with the tracked subjects it names highlighted, the
// subjects named, its citations with their status and domain, its ads, and its provenance. The
// highlights follow the service's mention matcher (src/runs/subjects.ts): each name, alias and
// domain, word-bounded, case-insensitive, longest first, a term shared by two subjects going to
// the first (the brand, then the competitors in order); only the subjects the run's `mentions`
// list are marked.
import { api } from './api.js';
import { engines, failure, pageHref, readAddress, startShell, status, updateNav } from './shell.js';
import { $, badge, count, emptyRow, formatTime, h, longDay, numCell, outLink, td, usd } from './ui.js';

const OWN = ['status', 'promptId', 'day'];
const state = readAddress(OWN);
const runId = decodeURIComponent(/^\/projects\/[^/]+\/runs\/([^/]+)/.exec(location.pathname)?.[1] ?? '');
const SURFACES = { api: "the provider's API", serp: 'a search results page (SERP)' };

async function start() {
  await startShell('run', state);
  updateNav(state);
  const back = {};
  for (const key of OWN) if (state[key]) back[key] = state[key];
  $('back').href = pageHref(state.projectId, 'prompts', state, back);
  const id = encodeURIComponent(state.projectId);
  const [run, list, subjects, topics] = await Promise.all([
    api(`/api/v1/projects/${id}/runs/${encodeURIComponent(runId)}`),
    engines(),
    loadSubjects(state.projectId),
    api(`/api/v1/projects/${id}/topics`).then((d) => d.topics, () => []),
  ]);
  const engineLabel = list.find((e) => e.id === run.engineId)?.label ?? run.engine;
  const topic = topics.find((t) => t.id === run.topicId)?.name ?? null;
  $('title').textContent = run.prompt;
  document.title = `${run.prompt} · ${engineLabel} · Sightline`;
  renderMeta(run, engineLabel, topic);
  renderAnswer(run, subjects);
  renderMentions(run);
  renderCitations(run, subjects);
  renderAds(run);
  renderProvenance(run);
  status('');
  $('main').removeAttribute('aria-busy');
}

/** The project's subjects with their aliases and domains (the management API, readable by members); names only if it fails. */
async function loadSubjects(projectId) {
  try {
    const [{ projects }, { competitors }] = await Promise.all([api('/app/api/projects'), api(`/app/api/projects/${encodeURIComponent(projectId)}/competitors`)]);
    const brand = projects.find((p) => p.id === projectId);
    return [...(brand ? [{ id: brand.id, type: 'brand', ...brand }] : []), ...competitors.map((c) => ({ ...c, type: 'competitor' }))];
  } catch {
    return [];
  }
}

function renderMeta(run, engineLabel, topic) {
  const item = (label, value) => h('li', {}, `${label} `, h('strong', {}, value));
  $('run-meta').replaceChildren(
    h('li', {}, badge(run.status, run.status === 'no_answer' ? 'no answer' : run.status)),
    item('Engine', engineLabel),
    h('li', {}, 'Ran ', h('strong', {}, h('time', { datetime: run.ranAt }, formatTime(run.ranAt))), ` (counted on ${longDay(run.day)})`),
    item('Location', run.location ?? "the provider's default"),
    item('Topic', topic ?? 'none'),
    item('Prompt', run.branded ? 'branded' : 'unbranded'),
  );
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The marked spans of `text`: [{ start, end, mention }] for the subjects the run names. */
function mentionSpans(text, mentions, subjects) {
  const named = new Map(mentions.map((m) => [m.subjectId, m]));
  // Every subject's terms, the brand first; subjects the project no longer lists still match by their mention's name.
  const known = subjects.map((s) => ({ id: s.id, terms: [s.name, ...(s.aliases ?? []), s.domain] }));
  for (const m of mentions) if (!known.some((s) => s.id === m.subjectId)) known.push({ id: m.subjectId, terms: [m.name] });
  const owner = new Map();
  for (const subject of known) for (const term of subject.terms) if (term && !owner.has(term.toLowerCase())) owner.set(term.toLowerCase(), subject.id);
  const terms = [...owner.keys()].sort((a, b) => b.length - a.length);
  if (!terms.length) return [];
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${terms.map(escape).join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  const spans = [];
  for (const match of text.matchAll(pattern)) {
    const mention = named.get(owner.get(match[0].toLowerCase()));
    if (mention) spans.push({ start: match.index, end: match.index + match[0].length, mention });
  }
  return spans;
}

function renderAnswer(run, subjects) {
  const answer = $('answer');
  if (run.answer === null || run.answer === '') {
    $('answer-key').hidden = true;
    answer.replaceChildren(h('span', { class: 'muted' }, run.status === 'ok' ? 'The answer text was not kept.' : `No answer${run.reason ? `: ${run.reason}` : '.'}`));
    return;
  }
  const text = run.answer;
  const parts = [];
  let at = 0;
  for (const span of mentionSpans(text, run.mentions, subjects)) {
    if (span.start > at) parts.push(text.slice(at, span.start));
    const m = span.mention;
    parts.push(h('mark', { class: m.subjectType, 'data-subject-id': m.subjectId, title: `${m.name} (${m.subjectType})` }, text.slice(span.start, span.end)));
    at = span.end;
  }
  parts.push(text.slice(at));
  answer.replaceChildren(...parts);
  $('answer-key').hidden = !run.mentions.length;
}

function renderMentions(run) {
  $('mentions').tBodies[0].replaceChildren(
    ...(run.mentions.length
      ? run.mentions.map((m) =>
          h(
            'tr',
            { 'data-subject-id': m.subjectId },
            h('th', { scope: 'row' }, m.name, m.subjectType === 'brand' ? h('span', { class: 'tag' }, 'brand') : null),
            numCell(m.position ?? '—'),
            numCell(count(m.count)),
            numCell(m.sentiment === null ? '—' : String(Math.round(m.sentiment)), m.sentiment === null ? 'not scored' : undefined),
          ),
        )
      : [emptyRow(4, run.status === 'ok' ? 'The answer names no tracked subject.' : 'No answer, so nothing named.')]),
  );
}

function renderCitations(run, subjects) {
  const whose = (c) => {
    if (!c.subjectType) return '—';
    const name = subjects.find((s) => s.id === c.subjectId)?.name ?? run.mentions.find((m) => m.subjectId === c.subjectId)?.name;
    return name ? `${name} (${c.subjectType})` : c.subjectType;
  };
  $('citations').tBodies[0].replaceChildren(
    ...(run.citations.length
      ? run.citations.map((c) =>
          h('tr', { 'data-status': c.status }, h('td', { class: 'wrap' }, outLink(c.url, c.displayUrl)), td(c.domain), h('td', {}, badge(c.status)), td(c.articleType), td(whose(c))),
        )
      : [emptyRow(5, 'The answer cites no page.')]),
  );
}

function renderAds(run) {
  $('ads').tBodies[0].replaceChildren(
    ...(run.ads.length
      ? run.ads.map((ad) => h('tr', {}, h('th', { scope: 'row' }, ad.advertiser), h('td', { class: 'wrap' }, ad.url ? outLink(ad.url) : '—'), td(ad.competitorId ? 'yes' : 'no')))
      : [emptyRow(3, 'No ads beside this answer.')]),
  );
}

function renderProvenance(run) {
  const facts = [
    ['Source', run.source === 'sampled' ? 'sampled by the service' : 'imported'],
    ['Provider', run.provider ?? 'not recorded'],
    ['Model', run.model ?? 'not recorded'],
    ['Surface', run.surface ? SURFACES[run.surface] ?? run.surface : 'not recorded'],
    ['Latency', run.latencyMs === null ? 'not recorded' : run.latencyMs < 1000 ? `${run.latencyMs} ms` : `${(run.latencyMs / 1000).toFixed(1)} s`],
    ['Cost', run.costUsd === null ? 'not reported by the provider' : usd(run.costUsd)],
    ['Sentiment scored by', run.sentimentMethod ?? (run.mentions.some((m) => m.sentiment !== null) ? 'given with the run (not scored by the service)' : 'not scored')],
    ...(run.reason ? [['Why', run.reason]] : []),
    ['Run', run.id],
    ...(run.checkId ? [['Check', run.checkId]] : []),
  ];
  $('provenance').replaceChildren(...facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));
  $('sources').replaceChildren(...(run.sources.length ? run.sources.map((url) => h('li', {}, outLink(url))) : [h('li', { class: 'muted' }, 'None reported.')]));
  $('fanout').replaceChildren(...(run.fanOutQueries.length ? run.fanOutQueries.map((q) => h('li', {}, q)) : [h('li', { class: 'muted' }, 'None reported.')]));
}

start().catch(failure('the run', 'No such run in this project.'));
