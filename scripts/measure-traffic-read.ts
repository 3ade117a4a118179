/**
 * Times GET /api/v1/projects/{id}/traffic's query (getTraffic) on a worst-case rollup, and the
 * first version's JavaScript grouping on the same rows when given a path to it (--old <file>).
 *
 *   DATABASE_URL=postgres://... node scripts/measure-traffic-read.ts [--old <old get-traffic.ts>]
 *
 * Writes into the database of DATABASE_URL (use a scratch one): one workspace and two projects.
 * Worst case under the cap: every day of the range holds PAGE_CAP pages (+ the overflow row) for
 * each of the 21 AI referrer platforms (the beacon's reach). Unbounded (before the cap): one day of
 * N distinct pages, as a beacon flood left it.
 */
import { sql } from 'kysely';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { openPostgres } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createProject } from '../src/projects/create-project.ts';
import { AI_REFERRER_HOSTS } from '../src/traffic/ai-referrals.ts';
import { getTraffic } from '../src/traffic/get-traffic.ts';
import { PAGE_CAP } from '../src/traffic/traffic-limits.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';

const { values } = parseArgs({ options: { old: { type: 'string' } } });
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required (a scratch database)');
const database = openPostgres(url, 4);
const db = database.db;
await migrateToLatest(db);
const oldGetTraffic = values.old ? ((await import(pathToFileURL(resolve(values.old)).href)).getTraffic as typeof getTraffic) : undefined;

const platforms = [...new Set(Object.values(AI_REFERRER_HOSTS))];
const { id: workspaceId } = await createWorkspace(db, { name: 'measure', plan: 'growth' });
const time = async (label: string, fn: () => Promise<unknown>, runs = 3) => {
  await fn();
  const all: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    all.push(performance.now() - start);
  }
  all.sort((a, b) => a - b);
  console.log(`${label}: median ${all[Math.floor(all.length / 2)]!.toFixed(1)} ms (${all.map((ms) => ms.toFixed(0)).join(', ')})`);
};

// 1. Worst case under the cap, 28 days (the default window) and 366 (the longest range).
for (const days of [28, 366]) {
  const { id } = await createProject(db, workspaceId, { name: `capped ${days}`, domain: `capped-${days}.example` });
  const start = performance.now();
  await sql`
    insert into traffic_daily (project_id, day, kind, path, platform, bot, hits)
    select ${id}::uuid, date '2026-11-22' - d, 'visit', case when p = ${PAGE_CAP} then '(other)' else '/page/' || p end, pl, '', 1 + (p % 7)
    from generate_series(0, ${days - 1}) d, generate_series(0, ${PAGE_CAP}) p, unnest(${platforms}::text[]) pl`.execute(db);
  await sql`analyze traffic_daily`.execute(db);
  const rows = (PAGE_CAP + 1) * platforms.length * days;
  console.log(`\ncapped worst case: ${days} days x ${PAGE_CAP + 1} pages x ${platforms.length} platforms = ${rows} rows (inserted in ${((performance.now() - start) / 1000).toFixed(1)} s)`);
  const from = new Date(Date.parse('2026-11-22') - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  await time(`  getTraffic (SQL), ${days} days`, () => getTraffic(db, id, from, '2026-11-22'));
  if (oldGetTraffic && days === 28) await time(`  first version (JS grouping), ${days} days`, () => oldGetTraffic(db, id, from, '2026-11-22'), 1);
}

// 2. One day as an uncapped beacon flood left it: N distinct pages on one platform.
for (const n of [10_000, 40_000]) {
  const { id } = await createProject(db, workspaceId, { name: `flood ${n}`, domain: `flood-${n}.example` });
  await sql`
    insert into traffic_daily (project_id, day, kind, path, platform, bot, hits)
    select ${id}::uuid, date '2026-11-22', 'visit', '/p/' || p, 'openai', '', 1 from generate_series(1, ${n}) p`.execute(db);
  console.log(`\nuncapped flood: one day, ${n} distinct pages`);
  await time(`  getTraffic (SQL)`, () => getTraffic(db, id, '2026-11-22', '2026-11-22'));
  if (oldGetTraffic) await time(`  first version (JS grouping)`, () => oldGetTraffic(db, id, '2026-11-22', '2026-11-22'), 1);
}
await database.close();
