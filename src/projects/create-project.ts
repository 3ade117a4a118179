import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';
import { inTransaction } from '../db/in-transaction.ts';
import { markWorkspaceChanged } from './mark-project-changed.ts';
import { validateSubject, type SubjectInput } from './subject-fields.ts';

/** A project is a brand: its id is the brand's `subjectId`. */
export async function createProject(db: Kysely<DB>, workspaceId: string, input: SubjectInput): Promise<{ id: string }> {
  const fields = validateSubject(input);
  const workspace = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
  if (!workspace) throw new NotFoundError(`no workspace ${workspaceId}`);
  const id = randomUUID();
  await inTransaction(db, async (tx) => {
    await tx.insertInto('projects').values({ id, workspace_id: workspaceId, ...fields }).execute();
    await markWorkspaceChanged(tx, workspaceId);
  });
  return { id };
}
