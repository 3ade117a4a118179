import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DB, ProjectRow } from '../db/types.ts';
import { addDays, resolveKnownFilters } from '../analytics/filters.ts';
import { getRanking } from '../analytics/get-ranking.ts';
import { listSubjects } from '../analytics/list-subjects.ts';
import { round2 } from '../analytics/statistics.ts';
import { listPrompts } from '../prompts/list-prompts.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import { utcDay } from '../usage/calendar.ts';
import { PER_ENGINE_CHECK, USD_PER_CREDIT } from '../usage/pricing.ts';
import { DAYS_PER_MONTH } from '../prompts/estimate-prompts.ts';
import { runsPerDayFor, TARGET_POWER } from './detection-power.ts';

export interface SamplePlan {
  /** The brand's visibility over the last 28 days (%), null when unmeasured. */
  visibility: number | null;
  sampleSize: number;
  /** The visibility the plan starts from: the measured one, else 50% (the most demanding). */
  baseline: number;
  /** The move to detect, in points (up and down; the harder decides). */
  delta: number;
  power: number;
  /** Completed runs needed each day (both days compared); null: the rule cannot reach the power for this move. */
  runsPerDay: number | null;
  /** Answered share of checks over the last 28 days (ok of ok, no_answer and failed); null when nothing was sampled. */
  completionRate: number | null;
  /** Checks a day needed for runsPerDay, at the completion rate (1 when unknown); null when runsPerDay is, or when no check answered. */
  checksPerDay: number | null;
  current: { checksPerDay: number; creditsPerDay: number };
  needed: {
    /** Samples per daily prompt, engine and location that give checksPerDay; null without a daily prompt on a configured engine. */
    samples: number | null;
    checksPerDay: number | null;
    creditsPerDay: number | null;
    creditsPerMonth: number | null;
    usdPerMonth: number | null;
  };
  /** Whether the prompt set as it is now samples enough. */
  enough: boolean;
}

/**
 * The sample-size planner: how many runs a day the change rule needs to report a move of `delta`
 * points in the brand's visibility with 80% power (detection-power.ts), and what the project's
 * prompt set must sample, and spend, to get them. Only daily prompts on configured engines make
 * daily samples; weekly ones are left out of the day's count.
 */
export async function planSamples(db: Kysely<DB>, project: ProjectRow, delta: number, configured: readonly EngineKey[], now: Date): Promise<SamplePlan> {
  const filters = resolveKnownFilters(project.id, {}, now, new Set());
  const brand = (await getRanking(db, filters, await listSubjects(db, project))).find((r) => r.subjectType === 'brand')!;
  const baseline = brand.visibility ?? 50;
  const p0 = baseline / 100;
  const d = delta / 100;
  const needs = [p0 + d <= 1 ? runsPerDayFor(p0, p0 + d) : null, p0 - d >= 0 ? runsPerDayFor(p0, p0 - d) : null].filter((n) => n !== null);
  const runsPerDay = needs.length === 0 || needs.includes(undefined) ? null : Math.max(...(needs as number[]));

  const outcomes = (
    await sql<{ outcome: string; n: number }>`select outcome, count(*)::int as n from checks
      where project_id = ${project.id} and day >= ${addDays(utcDay(now), -27)}::date and state = 'done' and outcome in ('ok', 'no_answer', 'failed')
      group by outcome`.execute(db)
  ).rows;
  const asked = outcomes.reduce((a, o) => a + o.n, 0);
  const completionRate = asked > 0 ? (outcomes.find((o) => o.outcome === 'ok')?.n ?? 0) / asked : null;
  // No check answered in 28 days: no number of checks is known to give the runs (null, not infinity).
  const checksPerDay = runsPerDay === null || completionRate === 0 ? null : Math.ceil(runsPerDay / (completionRate ?? 1));

  // Per unit of samples: the daily prompts' engine x location cells, and their price.
  let cells = 0;
  let cellCredits = 0;
  let currentChecks = 0;
  let currentCredits = 0;
  for (const p of await listPrompts(db, project.id, configured)) {
    const engines = p.engines.filter((e) => configured.includes(e));
    const locations = Math.max(1, p.locations.length);
    const share = p.cadence === 'daily' ? 1 : p.cadence === 'weekly' ? 1 / 7 : 0;
    for (const engine of engines) {
      currentChecks += share * locations * p.samples;
      currentCredits += share * locations * p.samples * PER_ENGINE_CHECK[engine];
      if (p.cadence === 'daily') {
        cells += locations;
        cellCredits += locations * PER_ENGINE_CHECK[engine];
      }
    }
  }
  const samples = checksPerDay === null || cells === 0 ? null : Math.ceil(checksPerDay / cells);
  const creditsPerDay = samples === null ? null : round2(samples * cellCredits);
  return {
    visibility: brand.visibility,
    sampleSize: brand.sampleSize,
    baseline,
    delta,
    power: TARGET_POWER,
    runsPerDay,
    completionRate: completionRate === null ? null : round2(completionRate),
    checksPerDay,
    current: { checksPerDay: round2(currentChecks), creditsPerDay: round2(currentCredits) },
    needed: {
      samples,
      checksPerDay: samples === null ? null : samples * cells,
      creditsPerDay,
      creditsPerMonth: creditsPerDay === null ? null : round2(creditsPerDay * DAYS_PER_MONTH),
      usdPerMonth: creditsPerDay === null ? null : round2(creditsPerDay * DAYS_PER_MONTH * USD_PER_CREDIT),
    },
    enough: checksPerDay !== null && currentChecks >= checksPerDay,
  };
}
