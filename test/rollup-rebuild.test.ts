import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../src/db/database.ts';
import { rebuildRollups } from '../src/db/migrations/2026-11-24-0010-scale.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { snapshotRollups } from './rollup-snapshot.ts';
import { openPrivateTestDatabase } from './helpers.ts';

// The rebuild empties the rollup tables, so it runs on a private database.
describe('rollups rebuilt from runs (migration 0010) equal rollups kept by the import', () => {
  let database: Database;
  before(async () => {
    database = await openPrivateTestDatabase();
  });
  after(async () => {
    await database.close();
  });

  test('on the demo data plus failed runs, runs without topic or location, a page cited twice, status flips, and a competitor added later (backfilled)', async () => {
    const demo = await seedDemo(database.db, { now: new Date('2026-11-22T10:00:00Z') });
    await importRuns(database.db, demo.projectId, [
      JSON.stringify({ engine: 'gemini', prompt: 'no topic here', ranAt: '2026-11-21T10:00:00Z', status: 'ok', answer: 'Globex and Acme CRM, unlike Hooli', citations: [{ url: 'https://acme.com/' }, { url: 'https://ACME.com/?utm_source=x' }, { url: 'https://hooli.xyz/a' }] }),
      JSON.stringify({ engine: 'gemini', prompt: 'no topic here', ranAt: '2026-11-21T11:00:00Z', status: 'failed' }),
      JSON.stringify({ engine: 'claude', prompt: 'other', ranAt: '2026-11-20T11:00:00Z', status: 'ok', mentions: [{ subject: 'Acme' }], answer: 'Hooli leads', citations: [{ url: 'https://hooli.xyz/a', status: 'hallucinated' }] }),
      JSON.stringify({ engine: 'claude', prompt: 'other', ranAt: '2026-11-21T12:00:00Z', status: 'ok', citations: [{ url: 'https://hooli.xyz/a', status: 'verified' }] }),
    ]);
    await addCompetitor(database.db, demo.projectId, { name: 'Hooli', domain: 'hooli.xyz' });
    const kept = await snapshotRollups(database.db);
    assert.ok((kept.run_rollup?.length ?? 0) > 0);
    assert.ok(kept.subject_rollup!.some((r) => /"untracked_runs":[1-9]/.test(String(r))), 'a run without answer text stays outside the late competitor\'s sample');
    assert.ok(kept.subject_rollup!.some((r) => String(r).includes('"citing_runs":1')));
    await rebuildRollups(database.db);
    assert.deepEqual(await snapshotRollups(database.db), kept);
  });
});
