import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { BadRequestError } from '../http/errors.ts';
import { DEFAULT_PLAN, PLAN_NAMES, isPlan } from './plans.ts';

export async function createWorkspace(db: Kysely<DB>, input: { name: string; plan?: string | undefined }): Promise<{ id: string }> {
  const name = input.name.trim();
  if (name === '' || name.length > 200) {
    throw new BadRequestError('name must be 1 to 200 characters', { name: 'must be 1 to 200 characters' });
  }
  const plan = input.plan ?? DEFAULT_PLAN;
  if (!isPlan(plan)) {
    throw new BadRequestError(`plan "${plan}" is not one of ${PLAN_NAMES.join(', ')}`, { plan: `must be one of ${PLAN_NAMES.join(', ')}` });
  }
  const id = randomUUID();
  await db.insertInto('workspaces').values({ id, name, plan, api_access: null }).execute();
  return { id };
}

/** A workspace made by a signed-in person (the app), who becomes its owner: both or neither. */
export async function createOwnedWorkspace(db: Kysely<DB>, ownerId: string, input: { name: string; plan?: string | undefined }): Promise<{ id: string }> {
  return db.transaction().execute(async (tx) => {
    const made = await createWorkspace(tx, input);
    await tx.insertInto('memberships').values({ workspace_id: made.id, user_id: ownerId, role: 'owner' }).execute();
    return made;
  });
}
