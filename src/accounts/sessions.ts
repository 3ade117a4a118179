import { createHash, randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Role } from './roles.ts';
import { verifyPassword } from './password.ts';

/** A session lasts this long from sign-in; signing out or its expiry ends it. */
export const SESSION_MS = 7 * 86_400_000;
export const SESSION_COOKIE = 'sl_session';

export interface Session {
  userId: string;
  email: string;
  workspaceId: string;
  role: Role;
  csrfToken: string;
  expiresAt: Date;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Signs in: the password checked against its scrypt hash (a dummy hash for an unknown email, so
 * both take the same time), then a session in the person's first workspace (or the one asked for).
 * The token is returned once, for the cookie; only its hash is stored.
 */
export async function signIn(db: Kysely<DB>, email: string, password: string, now: Date, workspaceId?: string): Promise<{ token: string; session: Session } | undefined> {
  const user = await db.selectFrom('users').select(['id', 'email', 'password_hash']).where(sql`lower(email)`, '=', email.trim().toLowerCase()).executeTakeFirst();
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) return undefined;
  let membership = db.selectFrom('memberships').select(['workspace_id', 'role']).where('user_id', '=', user.id);
  if (workspaceId !== undefined) membership = membership.where('workspace_id', '=', workspaceId);
  const member = await membership.orderBy('created_at').orderBy('workspace_id').executeTakeFirst();
  if (!member) return undefined;
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_MS);
  await db.insertInto('sessions').values({ token_hash: hashToken(token), user_id: user.id, workspace_id: member.workspace_id, csrf_token: csrfToken, expires_at: expiresAt }).execute();
  return { token, session: { userId: user.id, email: user.email, workspaceId: member.workspace_id, role: member.role, csrfToken, expiresAt } };
}

/** The live session a cookie's token names (its member's current role), or undefined. */
export async function findSession(db: Kysely<DB>, token: string, now: Date): Promise<Session | undefined> {
  if (token.length < 20 || token.length > 100) return undefined;
  const row = await db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('memberships as m', (join) => join.onRef('m.user_id', '=', 's.user_id').onRef('m.workspace_id', '=', 's.workspace_id'))
    .select(['s.user_id', 'u.email', 's.workspace_id', 'm.role', 's.csrf_token', 's.expires_at'])
    .where('s.token_hash', '=', hashToken(token))
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
  return row && { userId: row.user_id, email: row.email, workspaceId: row.workspace_id, role: row.role, csrfToken: row.csrf_token, expiresAt: row.expires_at };
}

/**
 * Moves a live session to another workspace of its person (the workspace switcher), or undefined
 * when the person is no member there. The token and the CSRF token stay.
 */
export async function moveSession(db: Kysely<DB>, token: string, workspaceId: string, now: Date): Promise<Session | undefined> {
  const moved = await db
    .updateTable('sessions as s')
    .set({ workspace_id: workspaceId })
    .where('s.token_hash', '=', hashToken(token))
    .where('s.expires_at', '>', now)
    .where(({ exists, selectFrom }) => exists(selectFrom('memberships as m').select('m.role').whereRef('m.user_id', '=', 's.user_id').where('m.workspace_id', '=', workspaceId)))
    .executeTakeFirst();
  return moved.numUpdatedRows === 0n ? undefined : findSession(db, token, now);
}

/** Signs out: the session is gone on every instance at once. */
export async function signOut(db: Kysely<DB>, token: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', hashToken(token)).execute();
}

/** A valid scrypt hash of a random password: what an unknown email is checked against. */
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
