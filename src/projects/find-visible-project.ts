import type { Kysely } from 'kysely';
import type { DB, ProjectRow } from '../db/types.ts';
import type { Principal } from '../auth/find-principal.ts';
import { NotFoundError } from '../http/errors.ts';

/**
 * The project a key asks for, or 404. Another workspace's project, and for a project-scoped key
 * any other project, answer exactly as an unknown id does, so ids cannot be probed.
 */
export async function findVisibleProject(
  db: Kysely<DB>,
  principal: Pick<Principal, 'workspaceId' | 'projectId'>,
  projectId: string,
): Promise<ProjectRow> {
  const project =
    principal.projectId === null || principal.projectId === projectId
      ? await db
          .selectFrom('projects')
          .selectAll()
          .where('id', '=', projectId)
          .where('workspace_id', '=', principal.workspaceId)
          .executeTakeFirst()
      : undefined;
  if (!project) throw new NotFoundError(`no project ${projectId}`);
  return project;
}
