import { PER_ENGINE_CHECK, USD_PER_CREDIT } from '../usage/pricing.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import type { PromptView } from './list-prompts.ts';

/** A month for estimates: 30 days; a weekly prompt has 30/7 cycles in it. */
export const DAYS_PER_MONTH = 30;

export interface Estimate {
  checksPerMonth: number;
  creditsPerMonth: number;
  usdPerMonth: number;
}

/**
 * What a prompt set costs a month if every check is answered (a failed check costs nothing, so
 * this is the most it costs): per prompt, cycles a month x configured engines it is checked on x
 * locations (at least one) x samples, each check at its engine's price. Paused prompts cost nothing,
 * and so do engines that are not configured (their checks are skipped). Rounded to 2 decimals.
 */
export function estimatePrompts(prompts: readonly Pick<PromptView, 'engines' | 'locations' | 'samples' | 'cadence'>[], configured: readonly EngineKey[]): Estimate {
  let checks = 0;
  let credits = 0;
  for (const p of prompts) {
    const cycles = p.cadence === 'daily' ? DAYS_PER_MONTH : p.cadence === 'weekly' ? DAYS_PER_MONTH / 7 : 0;
    const perEngine = cycles * Math.max(1, p.locations.length) * p.samples;
    for (const engine of p.engines) {
      if (!configured.includes(engine)) continue;
      checks += perEngine;
      credits += perEngine * PER_ENGINE_CHECK[engine];
    }
  }
  return { checksPerMonth: round2(checks), creditsPerMonth: round2(credits), usdPerMonth: round2(credits * USD_PER_CREDIT) };
}

const round2 = (n: number) => Math.round(n * 100) / 100;
