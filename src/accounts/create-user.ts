import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { BadRequestError, NotFoundError } from '../http/errors.ts';
import { keepAnOwner } from './manage-members.ts';
import { hashPassword } from './password.ts';
import { ROLES, type Role } from './roles.ts';

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{2,}$/;
export const MIN_PASSWORD = 10;

/**
 * A person who signs in, made a member of a workspace with a role. An email already known (any
 * case) is the same person: they become a member of this workspace too (or their role here
 * changes), and their password stays theirs. Email: one address; password: 10 to 1,000 characters.
 */
export async function createUser(db: Kysely<DB>, input: { workspaceId: string; email: string; password: string; role: string }): Promise<{ id: string }> {
  const email = input.email.trim();
  const details: Record<string, string> = {};
  if (!EMAIL.test(email) || email.length > 254) details.email = 'must be an email address';
  if (!ROLES.includes(input.role as Role)) details.role = `must be one of ${ROLES.join(', ')}`;
  if (input.password.length < MIN_PASSWORD || input.password.length > 1_000) details.password = `must be ${MIN_PASSWORD} to 1000 characters`;
  if (Object.keys(details).length) throw new BadRequestError(`invalid user: ${Object.entries(details).map(([k, v]) => `${k} ${v}`).join('; ')}`, details);
  const passwordHash = await hashPassword(input.password);
  const create = async (tx: Transaction<DB>) => {
    const workspace = await tx.selectFrom('workspaces').select('id').where('id', '=', input.workspaceId).forNoKeyUpdate().executeTakeFirst();
    if (!workspace) throw new NotFoundError(`no workspace ${input.workspaceId}`);
    await tx.insertInto('users').values({ id: randomUUID(), email, password_hash: passwordHash }).onConflict((oc) => oc.expression(sql`lower(email)`).doNothing()).execute();
    const user = await tx.selectFrom('users').select('id').where(sql`lower(email)`, '=', email.toLowerCase()).executeTakeFirstOrThrow();
    // A known member's role changes here too: the last owner stays one.
    const member = await tx.selectFrom('memberships').select('role').where('workspace_id', '=', input.workspaceId).where('user_id', '=', user.id).executeTakeFirst();
    if (member?.role === 'owner' && input.role !== 'owner') await keepAnOwner(tx, input.workspaceId);
    await tx
      .insertInto('memberships')
      .values({ workspace_id: input.workspaceId, user_id: user.id, role: input.role as Role })
      .onConflict((oc) => oc.columns(['workspace_id', 'user_id']).doUpdateSet({ role: input.role as Role }))
      .execute();
    return { id: user.id };
  };
  return db.isTransaction ? create(db as Transaction<DB>) : db.transaction().execute(create);
}
