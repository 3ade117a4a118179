import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { lockProject } from '../db/lock-project.ts';
import { NotFoundError } from '../http/errors.ts';
import { markProjectChanged } from '../projects/mark-project-changed.ts';

/**
 * Removes a prompt from checking: never checked again (its queued checks are dropped; one already
 * running ends and is recorded); its runs stay and keep counting. Removing it again answers the
 * same `removedAt`.
 */
export async function removePrompt(db: Kysely<DB>, promptId: string, now: Date): Promise<{ id: string; removedAt: string }> {
  const found = await db.selectFrom('prompts').select('project_id').where('id', '=', promptId).executeTakeFirst();
  if (!found) throw new NotFoundError(`no prompt ${promptId}`);
  return db.transaction().execute(async (tx) => {
    await lockProject(tx, found.project_id);
    const prompt = await tx.selectFrom('prompts').select('removed_at').where('project_id', '=', found.project_id).where('id', '=', promptId).executeTakeFirstOrThrow();
    if (prompt.removed_at !== null) return { id: promptId, removedAt: prompt.removed_at.toISOString() };
    await tx.updateTable('prompts').set({ removed_at: now, updated_at: now }).where('project_id', '=', found.project_id).where('id', '=', promptId).execute();
    await tx.deleteFrom('checks').where('project_id', '=', found.project_id).where('prompt_id', '=', promptId).where('state', '=', 'queued').execute();
    await markProjectChanged(tx, found.project_id);
    return { id: promptId, removedAt: now.toISOString() };
  });
}
