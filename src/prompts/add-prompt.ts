import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { lockProject } from '../db/lock-project.ts';
import { ConflictError, NotFoundError } from '../http/errors.ts';
import { markProjectChanged } from '../projects/mark-project-changed.ts';
import { findOrCreateTopic } from './find-topic.ts';
import { DEFAULT_SETTINGS, type PromptSettings } from './prompt-settings.ts';

/**
 * Adds a prompt to be checked, under the project lock (imports create prompts by text too). A
 * prompt of the same text that an import created, or that was removed, is taken over: its runs stay
 * its own and the settings given replace its own. One already added and not removed is a conflict
 * (`prompt update` changes it).
 */
export async function addPrompt(db: Kysely<DB>, projectId: string, given: Partial<PromptSettings> & { text: string }): Promise<{ id: string }> {
  const settings: PromptSettings = { ...DEFAULT_SETTINGS, ...given };
  return db.transaction().execute(async (tx) => {
    await lockProject(tx, projectId);
    const project = await tx.selectFrom('projects').select(['id', 'workspace_id']).where('id', '=', projectId).executeTakeFirst();
    if (!project) throw new NotFoundError(`no project ${projectId}`);
    const existing = await tx
      .selectFrom('prompts')
      .select(['id', 'managed', 'removed_at'])
      .where('project_id', '=', projectId)
      .where('text', '=', settings.text)
      .executeTakeFirst();
    if (existing?.managed && existing.removed_at === null) {
      throw new ConflictError(`the project has this prompt already: ${existing.id} (prompt update changes it)`);
    }
    const topicId = settings.topic === null ? null : await findOrCreateTopic(tx, { id: projectId, workspaceId: project.workspace_id }, settings.topic);
    const row = {
      topic_id: topicId,
      branded: settings.branded,
      locations: settings.locations,
      engines: settings.engines,
      samples: settings.samples,
      cadence: settings.cadence,
      managed: true,
      removed_at: null,
      updated_at: new Date(),
    };
    let id: string;
    if (existing) {
      id = existing.id;
      await tx.updateTable('prompts').set(row).where('project_id', '=', projectId).where('id', '=', id).execute();
    } else {
      id = randomUUID();
      await tx.insertInto('prompts').values({ id, workspace_id: project.workspace_id, project_id: projectId, text: settings.text, ...row }).execute();
    }
    await markProjectChanged(tx, projectId);
    return { id };
  });
}
