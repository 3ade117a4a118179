import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';

/** Revokes a key; the next request with it gets 401 on every instance. Revoking twice is harmless. */
export async function revokeApiKey(db: Kysely<DB>, id: string, now: Date): Promise<{ id: string; revokedAt: string }> {
  const key = await db.selectFrom('api_keys').select(['id', 'revoked_at']).where('id', '=', id).executeTakeFirst();
  if (!key) throw new NotFoundError(`no key ${id}`);
  if (key.revoked_at) return { id, revokedAt: key.revoked_at.toISOString() };
  await db.updateTable('api_keys').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  return { id, revokedAt: now.toISOString() };
}
