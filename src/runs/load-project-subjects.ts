import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';
import type { Subject } from './subjects.ts';

export interface ProjectSubjects {
  workspaceId: string;
  projectId: string;
  /** The brand first, then the competitors in the order they were added. */
  subjects: Subject[];
}

/** The subjects a project tracks now. Read under the project lock, it is the set a batch's runs track. */
export async function loadProjectSubjects(db: Kysely<DB>, projectId: string): Promise<ProjectSubjects> {
  const project = await db.selectFrom('projects').select(['id', 'workspace_id', 'name', 'domain', 'aliases']).where('id', '=', projectId).executeTakeFirst();
  if (!project) throw new NotFoundError(`no project ${projectId}`);
  const competitors = await db
    .selectFrom('competitors')
    .select(['id', 'name', 'domain', 'aliases'])
    .where('project_id', '=', projectId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return {
    workspaceId: project.workspace_id,
    projectId,
    subjects: [
      { type: 'brand', id: project.id, name: project.name, domain: project.domain, aliases: project.aliases },
      ...competitors.map((c) => ({ type: 'competitor' as const, id: c.id, name: c.name, domain: c.domain, aliases: c.aliases })),
    ],
  };
}
