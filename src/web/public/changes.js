// A project's change events, every kind, with their summaries (GET changes: the range only; the
// other filters are carried in the address for the other pages). The kind choice narrows the list
// shown and is kept in the address. A day's "Runs" link opens the runs of that day.
import { api } from './api.js';
import { bindFilters, failure, latest, pageHref, rangeOf, readAddress, startShell, writeAddress } from './shell.js';
import { $, emptyRow, h, longDay, td } from './ui.js';

const state = readAddress(['kind']);
const KINDS = {
  visibility_gained: 'Visibility gained',
  visibility_dropped: 'Visibility dropped',
  rank_improved: 'Rank improved',
  rank_dropped: 'Rank dropped',
  citation_gained: 'Citation gained',
  citation_lost: 'Citation lost',
  rival_ad_on_branded_prompt: 'Rival ad on branded prompt',
};
let events = [];

async function start() {
  const { project } = await startShell('changes', state);
  save();
  if (project) document.title = `Changes · ${project.name} · Sightline`;
  const kind = $('kind');
  kind.append(...Object.entries(KINDS).map(([value, label]) => h('option', { value }, label)));
  kind.value = KINDS[state.kind] ? state.kind : '';
  kind.addEventListener('change', () => {
    state.kind = kind.value;
    save();
    render();
  });
  bindFilters(state, () => {
    save();
    load().catch(fail);
  });
  await load();
}

const save = () => writeAddress(state, 'changes', { kind: state.kind });

const load = latest(async (signal, isLatest) => {
  const data = await api(`/api/v1/projects/${encodeURIComponent(state.projectId)}/changes?${new URLSearchParams(rangeOf(state))}`, { signal });
  if (!isLatest()) return;
  events = data.events;
  render();
});

function render() {
  const shown = events.filter((e) => !state.kind || e.kind === state.kind);
  const body = $('changes').tBodies[0];
  if (!shown.length) return body.replaceChildren(emptyRow(6, events.length ? 'No change of this kind in this range.' : 'No significant change in this range.'));
  body.replaceChildren(
    ...shown.map((e) =>
      h(
        'tr',
        { 'data-kind': e.kind, 'data-id': e.id },
        h('td', {}, h('time', { datetime: e.day }, longDay(e.day))),
        h('td', {}, h('span', { class: `kind kind-${e.kind}` }, e.kindLabel)),
        td(`${e.subjectName}${e.subjectType === 'brand' ? ' (brand)' : ''}`),
        td(e.engineLabel ?? 'All engines'),
        td(e.summary, 'wrap'),
        h('td', {}, h('a', { href: pageHref(state.projectId, 'prompts', state, { day: e.day }), 'aria-label': `Runs of ${longDay(e.day)}` }, 'Runs')),
      ),
    ),
  );
}

const fail = failure('the changes');

start().catch(fail);
