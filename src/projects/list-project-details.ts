import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';

export interface ProjectDetail {
  id: string;
  workspaceId: string;
  name: string;
  domain: string;
  color: string | null;
  aliases: string[];
  createdAt: string;
}

export type CompetitorDetail = Omit<ProjectDetail, 'workspaceId'>;

/** Projects with everything the operator set, oldest first: all of them, or one workspace's. */
export async function listProjectDetails(db: Kysely<DB>, workspaceId?: string): Promise<ProjectDetail[]> {
  if (workspaceId !== undefined) {
    const workspace = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
    if (!workspace) throw new NotFoundError(`no workspace ${workspaceId}`);
  }
  const rows = await db
    .selectFrom('projects')
    .selectAll()
    .$if(workspaceId !== undefined, (q) => q.where('workspace_id', '=', workspaceId!))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((p) => ({ id: p.id, workspaceId: p.workspace_id, name: p.name, domain: p.domain, color: p.color, aliases: p.aliases, createdAt: p.created_at.toISOString() }));
}

/** A project's competitors, in the order they were added. */
export async function listCompetitorDetails(db: Kysely<DB>, projectId: string): Promise<CompetitorDetail[]> {
  const project = await db.selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
  if (!project) throw new NotFoundError(`no project ${projectId}`);
  const rows = await db.selectFrom('competitors').selectAll().where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute();
  return rows.map((c) => ({ id: c.id, name: c.name, domain: c.domain, color: c.color, aliases: c.aliases, createdAt: c.created_at.toISOString() }));
}
