import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';
import { markProjectChanged } from './mark-project-changed.ts';
import { checkColor } from './subject-fields.ts';

/**
 * A subject's chart colour (the brand's, whose subject id is the project's, or a competitor's),
 * picked in the app: display only, so nothing is counted again, but the project's cached reads
 * (ranking rows carry the colour) are computed afresh from the commit on.
 */
export async function recolorSubject(db: Kysely<DB>, projectId: string, subjectId: string, given: string | null): Promise<{ id: string; color: string | null }> {
  const color = checkColor(given);
  return db.transaction().execute(async (tx) => {
    const changed =
      subjectId === projectId
        ? await tx.updateTable('projects').set({ color }).where('id', '=', projectId).executeTakeFirst()
        : await tx.updateTable('competitors').set({ color }).where('project_id', '=', projectId).where('id', '=', subjectId).executeTakeFirst();
    if (changed.numUpdatedRows === 0n) throw new NotFoundError(`no subject ${subjectId} in project ${projectId}`);
    await markProjectChanged(tx, projectId);
    return { id: subjectId, color };
  });
}
