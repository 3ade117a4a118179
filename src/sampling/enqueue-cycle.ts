import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { plainArray, textArray } from '../db/array-literal.ts';
import type { CyclePlan } from './plan-cycle.ts';

export interface EnqueuedCycle {
  /** Checks of the cycle to run (queued) or running now: the ones `sample --wait` waits for. */
  ids: { projectId: string; id: string }[];
  /** Checks of the cycle that already ran today (answered, no answer, or failed): not run again. */
  alreadyDone: number;
}

const CHUNK = 2_000;

/**
 * Queues a cycle's checks. A check whose identity exists is not made again (at most once per
 * identity). `now` (a `sample`): queued ones are due at once, and ones skipped earlier (credits,
 * ceiling) are queued again; `scheduled`: existing checks are left as they are. The prompts'
 * last cycle day moves to the cycle's day.
 */
export async function enqueueCycle(db: Kysely<DB>, plan: CyclePlan, day: string, now: Date, mode: 'now' | 'scheduled', promptIds: readonly { projectId: string; id: string }[]): Promise<EnqueuedCycle> {
  const ids: EnqueuedCycle['ids'] = [];
  let alreadyDone = 0;
  for (let i = 0; i < plan.checks.length; i += CHUNK) {
    const part = plan.checks.slice(i, i + CHUNK);
    const columns = {
      project: plainArray(part.map((c) => c.projectId)),
      workspace: plainArray(part.map((c) => c.workspaceId)),
      prompt: plainArray(part.map((c) => c.promptId)),
      engine: textArray(part.map((c) => c.engine)),
      provider: textArray(part.map((c) => c.provider)),
      location: textArray(part.map((c) => c.location)),
      sample: plainArray(part.map((c) => c.sample)),
      runAfter: textArray(part.map((c) => c.runAfter.toISOString())),
      id: plainArray(part.map(() => randomUUID())),
    };
    await sql`insert into checks (project_id, id, workspace_id, prompt_id, engine, provider, location, day, sample, run_after)
      select project_id, id, workspace_id, prompt_id, engine, provider, location, ${day}::date, sample, run_after
      from unnest(${columns.project}::uuid[], ${columns.id}::uuid[], ${columns.workspace}::uuid[], ${columns.prompt}::uuid[], ${columns.engine}::text[],
                  ${columns.provider}::text[], ${columns.location}::text[], ${columns.sample}::smallint[], ${columns.runAfter}::timestamptz[])
        as t(project_id, id, workspace_id, prompt_id, engine, provider, location, sample, run_after)
      on conflict (project_id, prompt_id, engine, location, day, sample) do nothing`.execute(db);
    const rows = (
      await sql<{ project_id: string; id: string; state: string; outcome: string | null }>`
        select c.project_id, c.id, c.state, c.outcome
        from unnest(${columns.project}::uuid[], ${columns.prompt}::uuid[], ${columns.engine}::text[], ${columns.location}::text[], ${columns.sample}::smallint[])
          as t(project_id, prompt_id, engine, location, sample)
        join checks c on c.project_id = t.project_id and c.prompt_id = t.prompt_id and c.engine = t.engine
          and c.location = t.location and c.day = ${day}::date and c.sample = t.sample`.execute(db)
    ).rows;
    if (mode === 'now') {
      const again = rows.filter((r) => r.state === 'queued' || (r.state === 'done' && r.outcome === 'skipped'));
      if (again.length > 0) {
        await sql`update checks set state = 'queued', run_after = ${now}, outcome = null, reason = null, finished_at = null
          from unnest(${plainArray(again.map((r) => r.project_id))}::uuid[], ${plainArray(again.map((r) => r.id))}::uuid[]) as t(project_id, id)
          where checks.project_id = t.project_id and checks.id = t.id and (checks.state = 'queued' or (checks.state = 'done' and checks.outcome = 'skipped'))`.execute(db);
      }
    }
    for (const r of rows) {
      const requeued = mode === 'now' && r.state === 'done' && r.outcome === 'skipped';
      if (r.state === 'done' && !requeued) alreadyDone++;
      else ids.push({ projectId: r.project_id, id: r.id });
    }
  }
  if (promptIds.length > 0) {
    await sql`update prompts set last_cycle_day = ${day}::date
      from unnest(${plainArray(promptIds.map((p) => p.projectId))}::uuid[], ${plainArray(promptIds.map((p) => p.id))}::uuid[]) as t(project_id, id)
      where prompts.project_id = t.project_id and prompts.id = t.id and (prompts.last_cycle_day is null or prompts.last_cycle_day < ${day}::date)`.execute(db);
  }
  return { ids, alreadyDone };
}
