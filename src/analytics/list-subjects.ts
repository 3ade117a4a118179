import type { Kysely } from 'kysely';
import type { DB, ProjectRow } from '../db/types.ts';
import { preparedStatement, runPrepared } from '../db/prepared.ts';

export interface SubjectRow {
  subjectType: 'brand' | 'competitor';
  subjectId: string;
  name: string;
  color: string | null;
  domain: string;
}

const COMPETITORS = preparedStatement('list_competitors', 'select id, name, color, domain from competitors where project_id = $1 order by created_at, id');

/** The brand (its id is the project id) and its competitors, in the order they were added. */
export async function listSubjects(db: Kysely<DB>, project: ProjectRow): Promise<SubjectRow[]> {
  const competitors = (await runPrepared<{ id: string; name: string; color: string | null; domain: string }>(db, COMPETITORS, [project.id])).rows;
  return [
    { subjectType: 'brand', subjectId: project.id, name: project.name, color: project.color, domain: project.domain },
    ...competitors.map((c) => ({ subjectType: 'competitor' as const, subjectId: c.id, name: c.name, color: c.color, domain: c.domain })),
  ];
}
