import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { ingestWindow } from './ingest-window.ts';

/** Rows deleted per statement: short transactions, no long lock on a big table. */
const BATCH = 10_000;

export interface PruneCounts {
  /** Dedupe hashes deleted: their lines' day has left the ingest window. */
  ingestLines: number;
}

/**
 * Retention, for a periodic call from the server: deletes the dedupe hashes (`ingest_lines`) of
 * lines dated before the ingest window at `now`. Ingest refuses such lines as `too_old`, so a
 * hash is only deleted once its line can no longer be counted again. `traffic_daily`, the
 * product's data, is kept. Idempotent; safe to run from several processes at once.
 */
export async function pruneTraffic(db: Kysely<DB>, now: Date): Promise<PruneCounts> {
  const { firstDay } = ingestWindow(now);
  let ingestLines = 0;
  for (;;) {
    const result = await sql`
      delete from ingest_lines
      where ctid = any(array(select ctid from ingest_lines where day < ${firstDay} limit ${BATCH}))`.execute(db);
    const deleted = Number(result.numAffectedRows ?? 0n);
    ingestLines += deleted;
    if (deleted < BATCH) return { ingestLines };
  }
}
