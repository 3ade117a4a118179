import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { changeEventRowToChangeEvent, selectChangeEventRows, type ChangeEvent } from './change-event.ts';

export const MAX_EVENTS = 50;

/** The 50 most recent events of the range, newest day first (then latest detected, then kind). */
export async function listChanges(db: Kysely<DB>, projectId: string, from: string, to: string): Promise<ChangeEvent[]> {
  const rows = await selectChangeEventRows(db)
    .where('c.project_id', '=', projectId)
    .where('c.day', '>=', from)
    .where('c.day', '<=', to)
    .orderBy('c.day', 'desc')
    .orderBy('c.detected_at', 'desc')
    .orderBy('c.kind')
    .orderBy('c.id')
    .limit(MAX_EVENTS)
    .execute();
  return rows.map(changeEventRowToChangeEvent);
}
