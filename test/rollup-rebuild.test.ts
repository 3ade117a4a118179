import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/db/database.ts';
import type { DB } from '../src/db/types.ts';
import { up as rebuildRollups } from '../src/db/migrations/2026-11-22-0003-rollup-cube.ts';
import { up as addSubjectCitations } from '../src/db/migrations/2026-11-22-0004-subject-citations.ts';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { openPrivateTestDatabase } from './helpers.ts';

// The rebuild drops and recreates the rollup tables, so it runs on a private database.
describe('rollups rebuilt from runs (migrations 0003 and 0004) equal rollups kept by the import', () => {
  let database: Database;
  before(async () => {
    database = await openPrivateTestDatabase();
  });
  after(async () => {
    await database.close();
  });

  async function snapshot(db: Kysely<DB>): Promise<Record<string, unknown[]>> {
    const out: Record<string, unknown[]> = {};
    for (const table of ['run_rollup', 'subject_rollup', 'citation_rollup']) {
      const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
      out[table] = rows.rows.map((r) => JSON.stringify(r)).sort();
    }
    return out;
  }

  test('on the demo data plus failed runs, runs without topic or location, and citations', async () => {
    const demo = await seedDemo(database.db, { now: new Date('2026-11-22T10:00:00Z') });
    await importRuns(database.db, demo.projectId, [
      JSON.stringify({ engine: 'gemini', prompt: 'no topic here', ranAt: '2026-11-21T10:00:00Z', status: 'ok', answer: 'Globex and Acme CRM', citations: [{ url: 'https://acme.com/' }] }),
      JSON.stringify({ engine: 'gemini', prompt: 'no topic here', ranAt: '2026-11-21T11:00:00Z', status: 'failed' }),
    ]);
    const kept = await snapshot(database.db);
    assert.ok((kept.run_rollup?.length ?? 0) > 0);
    await rebuildRollups(database.db);
    await sql`alter table subject_rollup drop column if exists citations`.execute(database.db);
    await addSubjectCitations(database.db);
    assert.deepEqual(await snapshot(database.db), kept);
  });
});
