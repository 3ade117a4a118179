import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { lockProject } from '../db/lock-project.ts';
import { ConflictError, NotFoundError } from '../http/errors.ts';
import { markProjectChanged } from '../projects/mark-project-changed.ts';
import { findOrCreateTopic } from './find-topic.ts';
import type { PromptSettings } from './prompt-settings.ts';

/** The prompt a command names by id alone: its project, or 404 (also for a removed one). */
export async function findPromptProject(db: Kysely<DB>, promptId: string): Promise<{ projectId: string; workspaceId: string }> {
  const row = await db.selectFrom('prompts').select(['project_id', 'workspace_id']).where('id', '=', promptId).where('removed_at', 'is', null).executeTakeFirst();
  if (!row) throw new NotFoundError(`no prompt ${promptId}`);
  return { projectId: row.project_id, workspaceId: row.workspace_id };
}

/**
 * Changes the settings given and keeps the rest; the prompt becomes managed (an imported prompt
 * updated is checked from then on, as its cadence says). Its runs stay its own. A new text that
 * another prompt of the project has is a conflict. Checks already queued keep the settings they
 * were made with; the next cycle follows the new ones.
 */
export async function updatePrompt(db: Kysely<DB>, promptId: string, changes: Partial<PromptSettings>): Promise<{ id: string }> {
  const { projectId, workspaceId } = await findPromptProject(db, promptId);
  return db.transaction().execute(async (tx) => {
    await lockProject(tx, projectId);
    const prompt = await tx.selectFrom('prompts').select('id').where('project_id', '=', projectId).where('id', '=', promptId).where('removed_at', 'is', null).executeTakeFirst();
    if (!prompt) throw new NotFoundError(`no prompt ${promptId}`);
    if (changes.text !== undefined) {
      const other = await tx.selectFrom('prompts').select('id').where('project_id', '=', projectId).where('text', '=', changes.text).where('id', '!=', promptId).executeTakeFirst();
      if (other) throw new ConflictError(`another prompt of the project has this text: ${other.id}`);
    }
    const topicId = changes.topic === undefined ? undefined : changes.topic === null ? null : await findOrCreateTopic(tx, { id: projectId, workspaceId }, changes.topic);
    await tx
      .updateTable('prompts')
      .set({
        ...(changes.text !== undefined ? { text: changes.text } : {}),
        ...(topicId !== undefined ? { topic_id: topicId } : {}),
        ...(changes.branded !== undefined ? { branded: changes.branded } : {}),
        ...(changes.locations !== undefined ? { locations: changes.locations } : {}),
        ...(changes.engines !== undefined ? { engines: changes.engines } : {}),
        ...(changes.samples !== undefined ? { samples: changes.samples } : {}),
        ...(changes.cadence !== undefined ? { cadence: changes.cadence } : {}),
        managed: true,
        updated_at: new Date(),
      })
      .where('project_id', '=', projectId)
      .where('id', '=', promptId)
      .execute();
    await markProjectChanged(tx, projectId);
    return { id: promptId };
  });
}
