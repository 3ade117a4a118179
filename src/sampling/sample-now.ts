import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { plainArray } from '../db/array-literal.ts';
import { NotFoundError } from '../http/errors.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import { utcDay } from '../usage/calendar.ts';
import { enqueueCycle } from './enqueue-cycle.ts';
import { planCycle, type CyclePrompt } from './plan-cycle.ts';
import { configuredEngines } from './providers/providers-config.ts';
import { startSampler, type SamplerDeps } from './sampler.ts';

export interface SampleResult {
  /** Every check of the cycle: prompts x engines x locations x samples. */
  checks: number;
  ok: number;
  failed: number;
  noAnswer: number;
  /** Not run by this cycle: engines not configured, checks the credits could not pay, checks already run today. */
  skipped: number;
  creditsCharged: number;
}

/**
 * `sightline sample`: a cycle of the project's prompts (or one prompt) now. Its checks are queued
 * due at once (identities already run today are not run again; skipped ones are tried again). With
 * `wait`, this process works the cycle itself, beside any server working the queue, and returns
 * when every check of it has ended; without, it returns at once and the server's workers run it.
 * The counts are of what has ended by then.
 */
export async function sampleNow(deps: SamplerDeps, projectId: string, promptId: string | undefined, wait: boolean): Promise<SampleResult> {
  const { db } = deps;
  const now = deps.now();
  const day = utcDay(now);
  const prompts = await cyclePrompts(db, projectId, promptId);
  const plan = planCycle(prompts, configuredEngines(deps.sampling.providers), day, now, false);
  const cycle = await enqueueCycle(db, plan, day, now, 'now', prompts.map((p) => ({ projectId: p.projectId, id: p.id })));
  if (wait && cycle.ids.length > 0) {
    const sampler = startSampler(deps, { only: cycle.ids, pollMs: 250 });
    try {
      while ((await unfinished(db, cycle.ids)) > 0) await new Promise((r) => setTimeout(r, 200));
    } finally {
      await sampler.stop();
    }
  }
  const ended = await outcomes(db, cycle.ids);
  return {
    checks: plan.checks.length + plan.unconfigured,
    ok: ended.ok,
    failed: ended.failed,
    noAnswer: ended.no_answer,
    skipped: plan.unconfigured + cycle.alreadyDone + ended.skipped,
    creditsCharged: ended.credits,
  };
}

/** The prompts a `sample` checks: the one named (whatever its cadence), or every prompt of the project not paused or removed. */
export async function cyclePrompts(db: Kysely<DB>, projectId: string, promptId: string | undefined): Promise<CyclePrompt[]> {
  const project = await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
  if (!project) throw new NotFoundError(`no project ${projectId}`);
  let query = db.selectFrom('prompts').select(['id', 'project_id', 'workspace_id', 'locations', 'engines', 'samples']).where('project_id', '=', projectId).where('removed_at', 'is', null);
  query = promptId === undefined ? query.where('cadence', '<>', 'paused') : query.where('id', '=', promptId);
  const rows = await query.orderBy('created_at').orderBy('id').execute();
  if (promptId !== undefined && rows.length === 0) throw new NotFoundError(`no prompt ${promptId} in project ${projectId}`);
  return rows.map((r) => ({ id: r.id, projectId: r.project_id, workspaceId: r.workspace_id, locations: r.locations, engines: r.engines as EngineKey[] | null, samples: r.samples }));
}

function idsTable(ids: readonly { projectId: string; id: string }[]) {
  return sql`unnest(${plainArray(ids.map((i) => i.projectId))}::uuid[], ${plainArray(ids.map((i) => i.id))}::uuid[]) as t(project_id, id)`;
}

async function unfinished(db: Kysely<DB>, ids: readonly { projectId: string; id: string }[]): Promise<number> {
  const row = (await sql<{ n: number }>`select count(*)::int as n from ${idsTable(ids)} join checks c on c.project_id = t.project_id and c.id = t.id where c.state <> 'done'`.execute(db)).rows[0];
  return row?.n ?? 0;
}

async function outcomes(db: Kysely<DB>, ids: readonly { projectId: string; id: string }[]): Promise<{ ok: number; failed: number; no_answer: number; skipped: number; credits: number }> {
  const counts = { ok: 0, failed: 0, no_answer: 0, skipped: 0, credits: 0 };
  if (ids.length === 0) return counts;
  const rows = (
    await sql<{ outcome: keyof typeof counts; n: number; credits: number }>`
      select c.outcome, count(*)::int as n, coalesce(sum(c.credits), 0)::float8 as credits
      from ${idsTable(ids)} join checks c on c.project_id = t.project_id and c.id = t.id
      where c.state = 'done' group by c.outcome`.execute(db)
  ).rows;
  for (const r of rows) {
    counts[r.outcome] += r.n;
    counts.credits += r.credits;
  }
  counts.credits = Math.round(counts.credits * 10_000) / 10_000;
  return counts;
}
