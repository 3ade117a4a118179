import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { ConflictError, NotFoundError } from '../http/errors.ts';
import { attributeCitedUrls } from '../runs/attribute-cited-urls.ts';
import type { Subject } from '../runs/subjects.ts';
import { validateSubject, type SubjectInput } from './subject-fields.ts';

/**
 * Tracks a rival of the project's brand. The brand's own domain cannot be a competitor's. Pages
 * already cited under the new domain are credited to the competitor (attribute-cited-urls.ts).
 */
export async function addCompetitor(db: Kysely<DB>, projectId: string, input: SubjectInput): Promise<{ id: string }> {
  const fields = validateSubject(input);
  return db.transaction().execute(async (tx) => {
    const project = await tx
      .selectFrom('projects')
      .select(['id', 'workspace_id', 'domain'])
      .where('id', '=', projectId)
      .executeTakeFirst();
    if (!project) throw new NotFoundError(`no project ${projectId}`);
    const taken = await tx
      .selectFrom('competitors')
      .select('id')
      .where('project_id', '=', projectId)
      .where('domain', '=', fields.domain)
      .executeTakeFirst();
    if (taken || project.domain === fields.domain) {
      throw new ConflictError(`${fields.domain} is already tracked in this project`);
    }
    const id = randomUUID();
    await tx
      .insertInto('competitors')
      .values({ id, workspace_id: project.workspace_id, project_id: projectId, ...fields })
      .execute();
    const brand = await tx.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow();
    const competitors = await tx.selectFrom('competitors').selectAll().where('project_id', '=', projectId).execute();
    const subjects: Subject[] = [
      { type: 'brand', id: brand.id, name: brand.name, domain: brand.domain, aliases: brand.aliases },
      ...competitors.map((c) => ({ type: 'competitor' as const, id: c.id, name: c.name, domain: c.domain, aliases: c.aliases })),
    ];
    await attributeCitedUrls(tx, projectId, subjects, fields.domain);
    return { id };
  });
}
