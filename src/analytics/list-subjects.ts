import type { Kysely } from 'kysely';
import type { DB, ProjectRow } from '../db/types.ts';

export interface SubjectRow {
  subjectType: 'brand' | 'competitor';
  subjectId: string;
  name: string;
  color: string | null;
  domain: string;
}

/** The brand (its id is the project id) and its competitors, in the order they were added. */
export async function listSubjects(db: Kysely<DB>, project: ProjectRow): Promise<SubjectRow[]> {
  const competitors = await db
    .selectFrom('competitors')
    .select(['id', 'name', 'color', 'domain'])
    .where('project_id', '=', project.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return [
    { subjectType: 'brand', subjectId: project.id, name: project.name, color: project.color, domain: project.domain },
    ...competitors.map((c) => ({ subjectType: 'competitor' as const, subjectId: c.id, name: c.name, color: c.color, domain: c.domain })),
  ];
}
