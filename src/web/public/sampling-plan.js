// The sample-size planner (GET /api/v1/projects/{id}/plan): how many completed runs a day the
// change rule needs to report a visibility move of the chosen size with 80% power, at the brand's
// visibility now, and whether the project's daily prompts sample that much (and what enough costs).
import { api, ApiError } from './api.js';
import { $, count, pct, usd } from './ui.js';

export function bindPlan(projectId) {
  const load = () =>
    loadPlan(projectId, Number($('plan-delta').value)).catch((error) => {
      if (error instanceof ApiError && error.status === 401) return location.reload();
      $('plan-text').textContent = `The plan could not be read: ${error.message}`;
    });
  $('plan-delta').addEventListener('change', load);
  return load();
}

async function loadPlan(projectId, delta) {
  const plan = await api(`/api/v1/projects/${encodeURIComponent(projectId)}/plan?delta=${delta}`);
  const from =
    plan.visibility !== null
      ? `At the brand's visibility of ${pct(plan.visibility)} (n = ${count(plan.sampleSize)})`
      : plan.sampleSize > 0
        ? `With ${count(plan.sampleSize)} completed runs, too few for a rate (5 at least: planned from 50%, the most demanding)`
        : 'With the brand not measured yet (planned from 50%, the most demanding)';
  const lines = [];
  if (plan.runsPerDay === null) {
    lines.push(
      `${from}, no number of runs a day makes the change rule report a move of ${delta} points with ${pct(plan.power * 100, 0)} power${delta <= 10 ? ': it reports moves of more than 10 points only' : ''}.`,
    );
  } else {
    lines.push(
      `${from}, a move of ${delta} points is reported with ${pct(plan.power * 100, 0)} power when each day compared has ${count(plan.runsPerDay)} completed runs` +
        (plan.checksPerDay === null
          ? `, but no check of the last 28 days was answered: fix what fails (the runs say why) before sampling more.`
          : `: about ${count(plan.checksPerDay)} checks a day${plan.completionRate === null ? ' (no check has ended yet: every one taken as answered)' : ` at the completion rate of ${pct(plan.completionRate * 100, 0)}`}.`),
    );
    if (plan.checksPerDay !== null) lines.push(
      plan.needed.samples === null
        ? `The project has no daily prompt on a configured engine: it checks ${count(plan.current.checksPerDay)} a day.`
        : plan.enough
          ? `Its daily prompts sample enough now (${count(plan.current.checksPerDay)} checks a day).`
          : `Its daily prompts make ${count(plan.current.checksPerDay)} checks a day: sampling each ${count(plan.needed.samples)} times would make ${count(plan.needed.checksPerDay)} checks a day, ${count(plan.needed.creditsPerMonth)} credits (${usd(plan.needed.usdPerMonth)}) a month.`,
    );
  }
  $('plan-text').textContent = lines.join(' ');
}
