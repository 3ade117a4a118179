import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Principal } from '../auth/find-principal.ts';

export interface ProjectSummary {
  id: string;
  name: string;
  domain: string;
}

/** The projects a key can see, oldest first: its workspace's, or only its own when project-scoped. */
export async function listProjects(db: Kysely<DB>, principal: Pick<Principal, 'workspaceId' | 'projectId'>): Promise<ProjectSummary[]> {
  let query = db
    .selectFrom('projects')
    .select(['id', 'name', 'domain'])
    .where('workspace_id', '=', principal.workspaceId)
    .orderBy('created_at')
    .orderBy('id');
  if (principal.projectId !== null) query = query.where('id', '=', principal.projectId);
  return query.execute();
}
