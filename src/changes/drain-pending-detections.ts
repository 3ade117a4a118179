import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { detectPendingChanges } from './detect-changes.ts';

/**
 * The safety net of change detection: days left queued by a writer that stopped before draining
 * them (a crash, a kill, an error) are evaluated by the server. Days queued in the last `graceMs`
 * are left to the writer still working on them.
 */
export async function drainPendingDetections(db: Kysely<DB>, now: Date, graceMs = 10_000): Promise<number> {
  const projects = await db
    .selectFrom('pending_detections')
    .select('project_id')
    .distinct()
    .where('queued_at', '<', new Date(now.getTime() - graceMs))
    .limit(20)
    .execute();
  let days = 0;
  for (const { project_id } of projects) days += await detectPendingChanges(db, project_id, now);
  return days;
}
