import { sql, type Kysely } from 'kysely';
import type { DB } from '../src/db/types.ts';

const KEYS = ['project_id', 'grouping', 'engine_id', 'topic_id', 'location', 'branded', 'day', 'month', 'subject_id', 'url_id'];

/**
 * Every rollup row that holds something (an increment can leave a row of zeros, which says
 * nothing), as sorted JSON per table: what two ways of keeping the rollups must agree on.
 */
export async function snapshotRollups(db: Kysely<DB>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of ['run_rollup', 'subject_rollup', 'url_days']) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    const empty = (r: Record<string, unknown>) => Object.entries(r).every(([k, v]) => KEYS.includes(k) || v === 0 || (Array.isArray(v) && v.every((n) => n === 0)));
    out[table] = rows.rows.filter((r) => !empty(r)).map((r) => JSON.stringify(r)).sort();
  }
  // The detail's pages: appended per write, so compared as each page's sum per cell and day.
  const pages = await sql<Record<string, unknown>>`
    select project_id, engine_id, topic_id, location, branded, day, x.url_id, sum(x.n)::int as n
    from cell_pages cross join lateral unnest(url_ids, counts) as x(url_id, n)
    group by 1, 2, 3, 4, 5, 6, 7 having sum(x.n) <> 0`.execute(db);
  out.cell_pages = pages.rows.map((r) => JSON.stringify(r)).sort();
  return out;
}
