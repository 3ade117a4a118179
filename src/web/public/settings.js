// The workspace's settings, on the management API (/app/api, src/management/routes.ts): the
// workspace (settings-workspace.js), projects, the project's competitors and prompts (with the
// monthly estimate), collecting its data (settings-collect.js), API keys, webhooks, members, usage
// and credits. Every member reads; owners change, each change carrying the session's CSRF
// token. A viewer gets no change control at all (the forms and action buttons are removed, not
// disabled), and the service refuses a viewer's change anyway (403). A secret (a new key, a
// webhook's signing secret) is shown once, as the API gives it once.
import { api, ApiError } from './api.js';
import { bindCopy, change, colorInput, confirmButton, onSubmit, showSecret } from './forms.js';
import { bindCollect, loadProviders } from './settings-collect.js';
import { bindWorkspaceForms, loadWorkspace } from './settings-workspace.js';
import { currentSession, engines, failure, offerProject, readAddress, startShell, status, writeAddress } from './shell.js';
import { $, count, emptyRow, formatTime, h, longDay, numCell, option, swatch, td, usd } from './ui.js';

const state = readAddress();
let canChange = false;
let projectsById = new Map();
let engineList = [];
/** The prompt the prompt form edits, or null when it adds one. */
let editing = null;

const projectPath = () => `/app/api/projects/${encodeURIComponent(state.projectId)}`;
const list = (value) => value.split(',').map((s) => s.trim()).filter(Boolean);

async function start() {
  const { session, project } = await startShell('settings', state);
  if (state.projectId) writeAddress(state, 'settings');
  if (project) document.title = `Settings · ${project.name} · Sightline`;
  canChange = session.role === 'owner';
  if (canChange) {
    for (const form of document.querySelectorAll('form[data-change]')) form.hidden = false;
  } else {
    $('read-only').hidden = false;
    for (const node of document.querySelectorAll('[data-change], [data-change-column]')) node.remove();
  }
  for (const section of document.querySelectorAll('[data-project-section]')) section.hidden = !state.projectId;
  for (const name of document.querySelectorAll('[data-project-name]')) name.textContent = project ? `of ${project.name}` : '';
  engineList = await engines();
  if (canChange) bindForms();
  await Promise.all([
    loadWorkspace(canChange),
    loadProjects(),
    state.projectId ? loadCompetitors() : null,
    state.projectId ? loadPrompts() : null,
    state.projectId ? loadProviders(engineList) : null,
    loadKeys(),
    loadWebhooks(),
    loadMembers(),
    loadUsage(),
  ]);
  status('');
  $('main').removeAttribute('aria-busy');
}

function bindForms() {
  bindWorkspaceForms({
    onControls: () => Promise.all([loadWorkspace(true), loadUsage()]),
    onDemo: (projectId) => {
      offerProject(projectId, 'Acme CRM');
      status('Added Acme CRM: open it with the project picker above once its keys are copied.');
      return Promise.all([loadProjects(), loadKeys()]);
    },
    onGrant: loadUsage,
  });
  if (state.projectId) bindCollect(projectPath);
  onSubmit($('project-form'), async (f) => {
    const { id } = await change('/app/api/projects', 'POST', { name: f.name.value.trim(), domain: f.domain.value.trim(), color: f.color.value, aliases: list(f.aliases.value) });
    // The first project: its settings, where competitors and prompts are added.
    if (!state.projectId) return location.assign(`/projects/${encodeURIComponent(id)}/settings`);
    const name = f.name.value.trim();
    $('project-form').reset();
    offerProject(id, name);
    status(`Created ${name}: pick it in the project list above to open it.`);
    await loadProjects();
  });
  onSubmit($('competitor-form'), async (f) => {
    await change(`${projectPath()}/competitors`, 'POST', { name: f.name.value.trim(), domain: f.domain.value.trim(), color: f.color.value, aliases: list(f.aliases.value) });
    $('competitor-form').reset();
    await loadCompetitors();
  });

  $('prompt-engines').append(...engineList.map((e) => h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'engines', value: e.key }), ` ${e.label}`)));
  onSubmit($('prompt-form'), async (f) => {
    const samples = Number(f.samples.value);
    const body = {
      text: f.text.value.trim(),
      topic: f.topic.value.trim() || null,
      branded: f.branded.checked,
      locations: list(f.locations.value),
      engines: [...$('prompt-form').querySelectorAll('input[name="engines"]')].filter((c) => c.checked).map((c) => c.value),
      samples: Number.isFinite(samples) ? samples : 0,
      cadence: f.cadence.value,
    };
    if (body.engines.length === 0) body.engines = null;
    if (editing) await change(`/app/api/prompts/${encodeURIComponent(editing)}`, 'PATCH', body);
    else await change(`${projectPath()}/prompts`, 'POST', body);
    endEdit();
    await loadPrompts();
  });
  $('prompt-cancel').addEventListener('click', endEdit);

  onSubmit($('key-form'), async (f) => {
    const scopes = [...$('key-form').querySelectorAll('input[name="scopes"]')].filter((c) => c.checked).map((c) => c.value);
    const body = {
      scopes,
      ...(f.name.value.trim() ? { name: f.name.value.trim() } : {}),
      ...(f.projectId.value ? { projectId: f.projectId.value } : {}),
      // Empty: the default limit (60 a minute). A number the service refuses is said in the form.
      ...(f.rateLimit.value.trim() ? { rateLimit: Number(f.rateLimit.value) } : {}),
    };
    const { key } = await change('/app/api/keys', 'POST', body);
    $('key-form').reset();
    showSecret('key', key);
    await loadKeys();
  });
  bindCopy('key');

  onSubmit($('webhook-form'), async (f) => {
    const { secret } = await change('/app/api/webhooks', 'POST', { url: f.url.value.trim() });
    $('webhook-form').reset();
    showSecret('webhook', secret);
    await loadWebhooks();
  });
  bindCopy('webhook');

  onSubmit($('member-form'), async (f) => {
    await change('/app/api/members', 'POST', { email: f.email.value.trim(), role: f.role.value, password: f.password.value });
    $('member-form').reset();
    await loadMembers();
  });
}

/** The projects (keys name theirs once they are read). */
let projectsLoaded = null;
const loadProjects = () => (projectsLoaded = readProjects());

async function readProjects() {
  const { projects } = await api('/app/api/projects');
  projectsById = new Map(projects.map((p) => [p.id, p]));
  $('projects').tBodies[0].replaceChildren(
    ...(projects.length
      ? projects.map((p) =>
          h(
            'tr',
            { 'data-project-id': p.id },
            h('th', { scope: 'row' }, p.color ? swatch(p.color) : null, p.name),
            td(p.domain),
            colorCell(p.name, p.color, `/app/api/projects/${encodeURIComponent(p.id)}/subjects/${encodeURIComponent(p.id)}`),
            td(p.aliases.join(', ') || '—'),
            td(longDay(p.createdAt.slice(0, 10))),
          ),
        )
      : [emptyRow(5, canChange ? 'No project yet: create the first one below.' : 'No project yet.')]),
  );
  const keyProject = $('key-project');
  if (keyProject) keyProject.replaceChildren(option('', 'Every project'), ...projects.map((p) => option(p.id, p.name)));
}

/** A subject's chart colour: a picker that saves it for an owner, the swatch and its code for a viewer. */
function colorCell(name, color, path) {
  if (canChange) return h('td', {}, colorInput(`Colour of ${name}`, color, (value) => change(path, 'PATCH', { color: value })));
  return h('td', {}, color ? [swatch(color), h('code', {}, color)] : '—');
}

async function loadCompetitors() {
  const { competitors } = await api(`${projectPath()}/competitors`);
  $('competitors').tBodies[0].replaceChildren(
    ...(competitors.length
      ? competitors.map((c) =>
          h('tr', { 'data-competitor-id': c.id }, h('th', { scope: 'row' }, c.name), td(c.domain), colorCell(c.name, c.color, `${projectPath()}/subjects/${encodeURIComponent(c.id)}`), td(c.aliases.join(', ') || '—')),
        )
      : [emptyRow(4, 'No competitor yet.')]),
  );
}

async function loadPrompts() {
  const { prompts, estimate } = await api(`${projectPath()}/prompts`);
  $('estimate').textContent = `${count(estimate.checksPerMonth)} checks, ${count(estimate.creditsPerMonth)} credits, ${usd(estimate.usdPerMonth)} a month`;
  $('topic-names')?.replaceChildren(...[...new Set(prompts.map((p) => p.topic).filter(Boolean))].map((t) => h('option', { value: t })));
  const labels = new Map(engineList.map((e) => [e.key, e.label]));
  $('prompt-table').tBodies[0].replaceChildren(
    ...(prompts.length
      ? prompts.map((p) =>
          h(
            'tr',
            { 'data-prompt-id': p.id },
            td(p.text, 'wrap'),
            td(p.topic ?? '—'),
            td(p.branded ? 'yes' : 'no'),
            td(p.enginesChosen ? p.engines.map((e) => labels.get(e) ?? e).join(', ') : `every configured (${p.engines.length})`, 'wrap'),
            td(p.locations.join(', ') || 'default'),
            numCell(String(p.samples)),
            td(p.cadence),
            canChange
              ? h(
                  'td',
                  { class: 'actions' },
                  h('button', { type: 'button', 'aria-label': `Edit “${p.text}”`, 'data-action': 'edit' }, 'Edit'),
                  ' ',
                  confirmButton('Remove', 'Confirm removal', `Remove “${p.text}”`, async () => {
                    await change(`/app/api/prompts/${encodeURIComponent(p.id)}`, 'DELETE');
                    if (editing === p.id) endEdit();
                    await loadPrompts();
                  }),
                )
              : null,
          ),
        )
      : [emptyRow(canChange ? 8 : 7, 'No prompt yet.')]),
  );
  if (canChange) {
    for (const button of $('prompt-table').querySelectorAll('button[data-action="edit"]')) {
      const prompt = prompts.find((p) => p.id === button.closest('tr').dataset.promptId);
      button.addEventListener('click', () => beginEdit(prompt));
    }
  }
}

function beginEdit(prompt) {
  editing = prompt.id;
  const f = $('prompt-form').elements;
  f.text.value = prompt.text;
  f.topic.value = prompt.topic ?? '';
  f.branded.checked = prompt.branded;
  f.locations.value = prompt.locations.join(', ');
  f.samples.value = String(prompt.samples);
  f.cadence.value = prompt.cadence;
  for (const box of $('prompt-form').querySelectorAll('input[name="engines"]')) box.checked = prompt.enginesChosen && prompt.engines.includes(box.value);
  $('prompt-form-title').textContent = 'Change the prompt';
  $('prompt-submit').textContent = 'Save prompt';
  $('prompt-cancel').hidden = false;
  f.text.focus();
}

function endEdit() {
  editing = null;
  $('prompt-form').reset();
  $('prompt-form-title').textContent = 'Add a prompt';
  $('prompt-submit').textContent = 'Add prompt';
  $('prompt-cancel').hidden = true;
}

async function loadKeys() {
  const [{ keys }] = await Promise.all([api('/app/api/keys'), projectsLoaded]);
  $('keys').tBodies[0].replaceChildren(
    ...(keys.length
      ? keys.map((k) =>
          h(
            'tr',
            { 'data-key-id': k.id, 'data-revoked': k.revokedAt ? 'true' : 'false' },
            h('th', { scope: 'row' }, k.name ?? h('span', { class: 'muted' }, 'unnamed')),
            h('td', {}, h('code', {}, `${k.prefix}…`)),
            td(`${k.scopes.join(', ')}${k.rateLimit ? ` (${count(k.rateLimit)}/min)` : ''}`),
            td(k.projectId ? (projectsById.get(k.projectId)?.name ?? k.projectId) : 'every project'),
            td(longDay(k.createdAt.slice(0, 10))),
            td(k.lastUsedAt ? formatTime(k.lastUsedAt) : 'never'),
            td(k.revokedAt ? `revoked ${longDay(k.revokedAt.slice(0, 10))}` : 'active'),
            canChange
              ? h(
                  'td',
                  {},
                  k.revokedAt
                    ? null
                    : confirmButton('Revoke', 'Confirm revoking', `Revoke the key ${k.name ?? k.prefix}`, async () => {
                        await change(`/app/api/keys/${encodeURIComponent(k.id)}`, 'DELETE');
                        await loadKeys();
                      }),
                )
              : null,
          ),
        )
      : [emptyRow(canChange ? 8 : 7, 'No key yet.')]),
  );
}

async function loadWebhooks() {
  const { webhooks } = await api('/app/api/webhooks');
  $('webhooks').tBodies[0].replaceChildren(
    ...(webhooks.length
      ? webhooks.map((w) =>
          h(
            'tr',
            { 'data-webhook-id': w.id },
            td(w.url, 'wrap url'),
            td(longDay(w.createdAt.slice(0, 10))),
            numCell(count(w.deliveries.delivered)),
            numCell(count(w.deliveries.pending)),
            numCell(count(w.deliveries.failed)),
            td(w.lastError ?? '—', 'wrap'),
            canChange
              ? h(
                  'td',
                  {},
                  confirmButton('Remove', 'Confirm removal', `Remove the webhook ${w.url}`, async () => {
                    await change(`/app/api/webhooks/${encodeURIComponent(w.id)}`, 'DELETE');
                    await loadWebhooks();
                  }),
                )
              : null,
          ),
        )
      : [emptyRow(canChange ? 7 : 6, 'No webhook yet.')]),
  );
}

async function loadMembers() {
  const { members } = await api('/app/api/members');
  $('members').tBodies[0].replaceChildren(
    ...members.map((m) =>
      h(
        'tr',
        { 'data-member-id': m.id },
        h('th', { scope: 'row' }, m.email),
        canChange ? h('td', {}, roleSelect(m)) : td(m.role),
        td(longDay(m.since.slice(0, 10))),
        canChange
          ? h(
              'td',
              {},
              confirmButton('Remove', 'Confirm removal', `Remove ${m.email}`, async () => {
                await change(`/app/api/members/${encodeURIComponent(m.id)}`, 'DELETE');
                // Removing oneself ends one's own session here.
                if (m.id === currentSession().userId) return location.assign('/');
                await loadMembers();
              }),
            )
          : null,
      ),
    ),
  );
}

/** A member's role, changed as it is picked; a refusal (the last owner) puts it back and says why. */
function roleSelect(member) {
  const select = h('select', { 'aria-label': `Role of ${member.email}` }, option('owner', 'Owner'), option('viewer', 'Viewer'));
  select.value = member.role;
  select.addEventListener('change', async () => {
    select.disabled = true;
    try {
      await change(`/app/api/members/${encodeURIComponent(member.id)}`, 'PATCH', { role: select.value });
      member.role = select.value;
      status(`${member.email} is now ${select.value === 'owner' ? 'an owner' : 'a viewer'}.`);
      // One's own role given up: the page is a viewer's now.
      if (member.id === currentSession().userId && member.role === 'viewer') location.reload();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return location.reload();
      select.value = member.role;
      status(`${member.email}'s role was not changed: ${error.message}.`, 'error');
    } finally {
      select.disabled = false;
    }
  });
  return select;
}

/** An action's label from its key: `agent_chat_deep` -> "Agent chat deep". */
const actionLabel = (key) => key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');

async function loadUsage() {
  const usage = await api('/app/api/usage');
  const { credits, pricing, dailySpend } = usage;
  const item = (label, value, key) => h('li', { 'data-credit': key }, h('strong', {}, value), label);
  $('credits').replaceChildren(
    item('credits available', count(credits.available), 'available'),
    item('monthly allowance', count(credits.allowance), 'allowance'),
    item('rolled over', count(credits.rollover), 'rollover'),
    item('granted', count(credits.granted), 'granted'),
    item('consumed this month', count(credits.consumed), 'consumed'),
    item(`spent today of ${usd(dailySpend.ceilingUsd)} a day`, usd(dailySpend.spentUsd), 'spent'),
  );
  $('credits-note').textContent = `${usage.plan} plan, month from ${longDay(credits.period)}. One credit is ${usd(pricing.usdPerCredit)}. ${
    credits.enforced ? 'Running out of credits stops checks.' : 'Credits are counted but not enforced: running out does not stop checks.'
  }`;
  const labels = new Map(engineList.map((e) => [e.key, e.label]));
  $('engine-prices').tBodies[0].replaceChildren(
    ...Object.entries(pricing.perEngineCheck).map(([key, credits]) => h('tr', {}, h('th', { scope: 'row' }, labels.get(key) ?? key), numCell(String(credits)), numCell(usd(credits * pricing.usdPerCredit)))),
  );
  $('action-prices').tBodies[0].replaceChildren(...Object.entries(pricing.perAction).map(([key, credits]) => h('tr', {}, h('th', { scope: 'row' }, actionLabel(key)), numCell(String(credits)))));
}

start().catch(failure('the settings'));
