import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

export interface Engine {
  id: string;
  key: string;
  label: string;
}

/** The seven answer engines, in their fixed order; ids are stable across installations. */
export async function listEngines(db: Kysely<DB>): Promise<Engine[]> {
  return db.selectFrom('engines').select(['id', 'key', 'label']).orderBy('position').execute();
}
