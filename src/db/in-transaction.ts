import type { Kysely, Transaction } from 'kysely';
import type { DB } from './types.ts';

/** Runs `work` in the caller's transaction when there is one, else in a new one. */
export function inTransaction<T>(db: Kysely<DB>, work: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<DB>) : db.transaction().execute(work);
}
