import { sql, type Transaction } from 'kysely';
import type { DB } from './types.ts';

/**
 * Serialises the writers of one project (imports, sampled runs, competitor additions and their
 * backfills, status changes, change detection) for the rest of the transaction: a transaction-level
 * advisory lock keyed by the project. Writers of different projects never wait for each other.
 */
export async function lockProject(tx: Transaction<DB>, projectId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${projectId}::text, 0))`.execute(tx);
}
