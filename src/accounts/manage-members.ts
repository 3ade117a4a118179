import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../http/errors.ts';
import { ROLES, type Role } from './roles.ts';

/**
 * A member's role changed. A workspace always keeps an owner: the last one cannot become a viewer
 * (409). The member's sessions there read the new role on their next request.
 */
export async function changeMemberRole(db: Kysely<DB>, workspaceId: string, userId: string, role: string): Promise<{ id: string; role: Role }> {
  if (!ROLES.includes(role as Role)) throw new BadRequestError(`role "${role}" is not one of ${ROLES.join(', ')}`, { role: `must be one of ${ROLES.join(', ')}` });
  return db.transaction().execute(async (tx) => {
    const member = await membership(tx, workspaceId, userId);
    if (member.role === 'owner' && role !== 'owner') await keepAnOwner(tx, workspaceId);
    await tx.updateTable('memberships').set({ role: role as Role }).where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
    return { id: userId, role: role as Role };
  });
}

/**
 * A member removed from the workspace: their sessions there end at once (on every instance); the
 * person, their password and their other workspaces stay. The last owner cannot be removed (409).
 */
export async function removeMember(db: Kysely<DB>, workspaceId: string, userId: string): Promise<{ id: string }> {
  return db.transaction().execute(async (tx) => {
    const member = await membership(tx, workspaceId, userId);
    if (member.role === 'owner') await keepAnOwner(tx, workspaceId);
    await tx.deleteFrom('memberships').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
    await tx.deleteFrom('sessions').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
    return { id: userId };
  });
}

/** The membership, locked for the change (404 when the person is no member here). */
async function membership(tx: Transaction<DB>, workspaceId: string, userId: string): Promise<{ role: Role }> {
  // The workspace's row first (no-key: rows that only reference it, projects and keys, are not held
  // up): two changes to its owners at once take turns, so neither removes the other's "other owner".
  await tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forNoKeyUpdate().executeTakeFirst();
  const member = await tx.selectFrom('memberships').select('role').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).executeTakeFirst();
  if (!member) throw new NotFoundError(`no member ${userId}`);
  return member;
}

/** Refuses (409) a change that would leave the workspace without an owner, in the changing transaction. */
export async function keepAnOwner(tx: Transaction<DB>, workspaceId: string): Promise<void> {
  const owners = await tx.selectFrom('memberships').select((eb) => eb.fn.countAll<string>().as('n')).where('workspace_id', '=', workspaceId).where('role', '=', 'owner').executeTakeFirstOrThrow();
  if (Number(owners.n) <= 1) throw new ConflictError('a workspace keeps at least one owner: make another member an owner first');
}
