import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';

/**
 * The project's topic of this name (case-insensitive), created with this spelling if there is none,
 * as imports do. The caller holds the project lock.
 */
export async function findOrCreateTopic(tx: Transaction<DB>, project: { id: string; workspaceId: string }, name: string): Promise<string> {
  const found = await tx
    .selectFrom('topics')
    .select('id')
    .where('project_id', '=', project.id)
    .where(sql`lower(name)`, '=', name.toLowerCase())
    .executeTakeFirst();
  if (found) return found.id;
  const id = randomUUID();
  await tx.insertInto('topics').values({ id, workspace_id: project.workspaceId, project_id: project.id, name }).execute();
  return id;
}
