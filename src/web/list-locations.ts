import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

/** The rollup grouping that sums over engine, topic and branded and keeps the location (runs/rollup-cube.ts). */
const BY_LOCATION = 8 | 4 | 1;

/**
 * The sampling locations a project's runs were made in, for the app's location filter: from the
 * rollup (never the raw runs), of a project in the workspace only (else none). '' is "no location".
 */
export async function listLocations(db: Kysely<DB>, workspaceId: string, projectId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('run_rollup as r')
    .innerJoin('projects as p', 'p.id', 'r.project_id')
    .select('r.location')
    .distinct()
    .where('p.id', '=', projectId)
    .where('p.workspace_id', '=', workspaceId)
    .where('r.grouping', '=', BY_LOCATION)
    .where('r.location', '<>', '')
    .orderBy('r.location')
    .execute();
  return rows.map((r) => r.location);
}
