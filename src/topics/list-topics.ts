import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

export interface Topic {
  id: string;
  name: string;
}

/** A project's topics, by name. */
export async function listTopics(db: Kysely<DB>, projectId: string): Promise<Topic[]> {
  return db.selectFrom('topics').select(['id', 'name']).where('project_id', '=', projectId).orderBy('name').orderBy('id').execute();
}
