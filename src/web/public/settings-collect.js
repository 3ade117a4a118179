// Collecting a project's data now, as `sample`, `verify --wait` and `runs import` do: a cycle of
// the prompts queued for the engines, the cited pages that are due checked, a run file imported.
// And the engines' providers as configured (`providers list`), which every member reads.
import { api, ApiError } from './api.js';
import { change, onSubmit } from './forms.js';
import { $, count, emptyRow, h, td } from './ui.js';

/** What the service takes in one upload (src/management/work-routes.ts); the CLI imports any size. */
const UPLOAD_LIMIT = 32 * 1024 * 1024;
/** Rejected lines listed under an import; the rest are counted. */
const LISTED_ERRORS = 20;

const checks = (n) => `${count(n)} check${n === 1 ? '' : 's'}`;

function said(message, kind = '') {
  $('collect-result').textContent = message;
  $('collect-result').className = `small ${kind}`.trim();
}

/** A button whose action reports in the result line; held while it runs. */
function action(button, run) {
  button.addEventListener('click', async () => {
    button.disabled = true;
    said('Working…');
    try {
      said(await run());
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return location.reload();
      said(`${button.textContent} failed: ${error.message}`, 'error');
    } finally {
      button.disabled = false;
    }
  });
}

export function bindCollect(projectPath) {
  action($('sample-now'), async () => {
    const r = await change(`${projectPath()}/sample`, 'POST', {});
    if (r.checks === 0) return 'No prompt to ask: add one (or resume a paused one) under Prompts.';
    const queued = r.checks - r.skipped - r.ok - r.failed - r.noAnswer;
    return (
      `${checks(r.checks)} in this cycle: ${count(queued)} queued for the engines, ${count(r.skipped)} skipped ` +
      `(an engine without its key, a check already run today, or credits short)` +
      `${r.ok + r.failed + r.noAnswer ? `, ${count(r.ok)} answered, ${count(r.noAnswer)} without an AI answer, ${count(r.failed)} failed` : ''}. ` +
      'The answers appear under Prompts & runs as they land.'
    );
  });
  action($('verify-now'), async () => {
    const r = await change(`${projectPath()}/verify`, 'POST');
    const more = r.complete ? '' : ' More pages are due: press again, or leave them to the service, which checks them too.';
    if (r.checked === 0) return r.complete ? 'No cited page is due for a check.' : more.trim();
    return `Checked ${count(r.checked)} cited page${r.checked === 1 ? '' : 's'}: ${count(r.verified)} verified, ${count(r.stale)} stale, ${count(r.broken)} broken, ${count(r.hallucinated)} hallucinated, ${count(r.unchecked)} still unchecked.${more}`;
  });

  onSubmit($('import-form'), async (f) => {
    const file = f.file.files[0];
    if (!file) throw new Error('pick a file of run records.');
    if (file.size > UPLOAD_LIMIT) throw new Error('the file is over 32 MB: import it with `sightline runs import`, which takes any size.');
    $('import-result').hidden = true;
    const r = await change(`${projectPath()}/runs`, 'POST', file, 'application/x-ndjson');
    $('import-summary').textContent = `${file.name}: ${count(r.imported)} imported, ${count(r.skipped)} already imported, ${count(r.rejected)} rejected.`;
    $('import-errors').replaceChildren(
      ...r.errors.slice(0, LISTED_ERRORS).map((e) => h('li', {}, `line ${e.line}: ${e.message}`)),
      ...(r.rejected > LISTED_ERRORS ? [h('li', {}, `and ${count(r.rejected - LISTED_ERRORS)} more`)] : []),
    );
    $('import-result').hidden = false;
    $('import-form').reset();
  });
}

/** Each engine's provider: configured (its key set) or skipped. */
export async function loadProviders(engineList) {
  const { providers } = await api('/app/api/providers');
  const labels = new Map(engineList.map((e) => [e.key, e.label]));
  $('providers').tBodies[0].replaceChildren(
    ...(providers.length
      ? providers.map((p) =>
          h('tr', { 'data-engine': p.engine }, h('th', { scope: 'row' }, labels.get(p.engine) ?? p.engine), td(p.provider), td(p.model), td(p.configured ? 'configured' : 'no key: its checks are skipped')),
        )
      : [emptyRow(4, 'This instance has no sampling configuration: it imports runs only.')]),
  );
}
