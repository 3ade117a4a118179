import { createHash } from 'node:crypto';
import { ENGINE_ROUTES } from './providers/providers-config.ts';
import type { EngineKey } from '../runs/vocabulary.ts';

/** A prompt as a cycle needs it. */
export interface CyclePrompt {
  id: string;
  projectId: string;
  workspaceId: string;
  locations: readonly string[];
  /** null: every configured engine. */
  engines: readonly EngineKey[] | null;
  samples: number;
}

/** A check's identity (prompt, engine, location, UTC day, sample number) and whose it is. */
export interface CheckIdentity {
  projectId: string;
  workspaceId: string;
  promptId: string;
  engine: EngineKey;
  provider: string;
  location: string;
  day: string;
  sample: number;
}

/** One check of a cycle, and when it may run. */
export interface PlannedCheck extends CheckIdentity {
  runAfter: Date;
}

export interface CyclePlan {
  checks: PlannedCheck[];
  /** Checks of engines the prompt names that have no provider key: skipped, never charged. */
  unconfigured: number;
}

const DAY_MS = 86_400_000;

/**
 * A cycle of prompts on a UTC day: each prompt on each of its engines (every configured one when
 * it names none), in each of its locations (once with none), `samples` times. `spread`: each check
 * at a point of the rest of the day fixed by its identity (a hash), so a day's checks are spread
 * evenly and the same identity always gets the same time; otherwise all of them now (`sample`).
 */
export function planCycle(prompts: readonly CyclePrompt[], configured: readonly EngineKey[], day: string, now: Date, spread: boolean): CyclePlan {
  const checks: PlannedCheck[] = [];
  let unconfigured = 0;
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  const start = Math.max(now.getTime(), dayStart);
  const span = Math.max(0, dayStart + DAY_MS - start);
  for (const prompt of prompts) {
    const locations = prompt.locations.length > 0 ? prompt.locations : [''];
    for (const engine of prompt.engines ?? configured) {
      if (!configured.includes(engine)) {
        unconfigured += locations.length * prompt.samples;
        continue;
      }
      for (const location of locations) {
        for (let sample = 1; sample <= prompt.samples; sample++) {
          const identity = `${prompt.id}|${engine}|${location}|${day}|${sample}`;
          const runAfter = spread ? new Date(start + Math.floor(fraction(identity) * span)) : now;
          checks.push({ projectId: prompt.projectId, workspaceId: prompt.workspaceId, promptId: prompt.id, engine, provider: ENGINE_ROUTES[engine].provider, location, day, sample, runAfter });
        }
      }
    }
  }
  return { checks, unconfigured };
}

/** A number in [0, 1) fixed by the text. */
function fraction(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}
