import type { Transaction } from 'kysely';
import type { DB } from '../db/types.ts';

/**
 * Records, in the writer's own transaction, the days whose change events must be evaluated again.
 * Detection drains them (detect-pending-changes.ts): a crash, a kill or an error between the two
 * leaves the days pending, never forgotten.
 */
export async function queueDetection(tx: Transaction<DB>, projectId: string, days: Iterable<string>): Promise<void> {
  const unique = [...new Set(days)].sort();
  if (unique.length === 0) return;
  await tx
    .insertInto('pending_detections')
    .values(unique.map((day) => ({ project_id: projectId, day })))
    .onConflict((oc) => oc.columns(['project_id', 'day']).doNothing())
    .execute();
}
