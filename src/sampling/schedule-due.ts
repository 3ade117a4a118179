import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import { utcDay } from '../usage/calendar.ts';
import { enqueueCycle } from './enqueue-cycle.ts';
import { planCycle, type CyclePrompt } from './plan-cycle.ts';

/** Prompts planned per transaction. */
const BATCH = 200;

/**
 * The scheduler's tick (every instance runs it; prompts are taken with SKIP LOCKED, and a check's
 * identity is made once, so instances never double a cycle): each prompt checked daily with no
 * cycle today, or weekly with none in the last seven days, gets today's cycle, spread over the rest
 * of the day. Returns the checks queued.
 */
export async function scheduleDue(db: Kysely<DB>, configured: readonly EngineKey[], now: Date): Promise<number> {
  const day = utcDay(now);
  let queued = 0;
  for (;;) {
    const planned = await db.transaction().execute(async (tx) => {
      const rows = (
        await sql<{ id: string; project_id: string; workspace_id: string; locations: string[]; engines: EngineKey[] | null; samples: number }>`
          select id, project_id, workspace_id, locations, engines, samples from prompts
          where cadence <> 'paused' and removed_at is null
            and (last_cycle_day is null or (cadence = 'daily' and last_cycle_day < ${day}::date) or (cadence = 'weekly' and last_cycle_day <= ${day}::date - 7))
          limit ${BATCH} for update skip locked`.execute(tx)
      ).rows;
      if (rows.length === 0) return { prompts: 0, checks: 0 };
      const prompts: CyclePrompt[] = rows.map((r) => ({ id: r.id, projectId: r.project_id, workspaceId: r.workspace_id, locations: r.locations, engines: r.engines, samples: r.samples }));
      const plan = planCycle(prompts, configured, day, now, true);
      await enqueueCycle(tx, plan, day, now, 'scheduled', prompts.map((p) => ({ projectId: p.projectId, id: p.id })));
      return { prompts: rows.length, checks: plan.checks.length };
    });
    queued += planned.checks;
    if (planned.prompts < BATCH) return queued;
  }
}
