// The workspace's own settings: its plan and spending controls, another workspace (made, then
// switched to), the demo project, and credit grants. Owners change them, as `workspace update`,
// `workspace create`, `demo` and `credits grant` do on the command line.
import { api } from './api.js';
import { bindCopy, change, onSubmit, showSecret } from './forms.js';
import { switchWorkspace } from './shell.js';
import { $, usd } from './ui.js';

/** Plans with API access when the workspace leaves it to the plan (src/workspaces/plans.ts). */
const PLAN_API = { free: false, starter: true, growth: true, enterprise: true };
const apiAccessOf = (controls) => controls.apiAccess ?? PLAN_API[controls.plan] ?? false;

/** The workspace's line and, for owners, its controls in the form. */
export async function loadWorkspace(canChange) {
  const [{ workspaces }, controls] = await Promise.all([api('/app/api/workspaces'), api('/app/api/workspace')]);
  const current = workspaces.find((w) => w.current);
  const access = apiAccessOf(controls);
  $('workspace').textContent =
    `${current.name}: ${controls.plan} plan; API access ${access ? 'on' : 'off'}${controls.apiAccess === null ? ' (as the plan has it)' : ''}; ` +
    `credits ${controls.creditsEnforced ? 'enforced' : 'counted, not enforced'}; spending at most ${usd(controls.dailyCeilingUsd)} a day. ` +
    `You are ${current.role === 'owner' ? 'an owner' : 'a viewer'}${workspaces.length > 1 ? `, one of your ${workspaces.length} workspaces` : ''}.`;
  if (!canChange) return;
  const f = $('controls-form').elements;
  f.plan.value = controls.plan;
  f.apiAccess.value = controls.apiAccess === null ? '' : String(controls.apiAccess);
  f.dailyCeilingUsd.value = String(controls.dailyCeilingUsd);
  f.creditsEnforced.checked = controls.creditsEnforced;
}

/** The owner's forms of the workspace card and the credit grant; the callbacks redraw what each changes. */
export function bindWorkspaceForms({ onControls, onDemo, onGrant }) {
  onSubmit($('controls-form'), async (f) => {
    const ceiling = f.dailyCeilingUsd.value.trim();
    if (ceiling === '') throw new Error('give a daily ceiling in USD (0 stops all spending).');
    const apiAccess = f.apiAccess.value === '' ? null : f.apiAccess.value === 'true';
    await change('/app/api/workspace', 'PATCH', { plan: f.plan.value, apiAccess, creditsEnforced: f.creditsEnforced.checked, dailyCeilingUsd: Number(ceiling) });
    await onControls();
  });

  onSubmit($('workspace-form'), async (f) => {
    const { id } = await change('/app/api/workspaces', 'POST', { name: f.name.value.trim(), plan: f.plan.value });
    // A new workspace has no project yet: its settings, where the first one is made.
    await switchWorkspace(id, '/settings');
  });

  onSubmit($('demo-form'), async () => {
    const { projectId, keys } = await change('/app/api/demo', 'POST');
    showSecret('demo', `read key:   ${keys.read}\ningest key: ${keys.ingest}`);
    await onDemo(projectId);
  });
  bindCopy('demo');

  onSubmit($('grant-form'), async (f) => {
    const credits = f.credits.value.trim();
    if (credits === '') throw new Error('give the number of credits to grant.');
    const note = f.note.value.trim();
    await change('/app/api/credits', 'POST', { credits: Number(credits), ...(note ? { note } : {}) });
    $('grant-form').reset();
    await onGrant();
  });
}
