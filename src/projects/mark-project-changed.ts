import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';

/**
 * Moves the project's data version, in the writer's transaction: every cached read of the project
 * (keyed by the version) is then computed afresh, on every instance, from the commit on.
 */
export async function markProjectChanged(tx: Transaction<DB>, projectId: string): Promise<void> {
  await sql`update projects set data_version = data_version + 1 where id = ${projectId}`.execute(tx);
}

/** The same for what a workspace lists (its projects). */
export async function markWorkspaceChanged(tx: Transaction<DB>, workspaceId: string): Promise<void> {
  await sql`update workspaces set data_version = data_version + 1 where id = ${workspaceId}`.execute(tx);
}
