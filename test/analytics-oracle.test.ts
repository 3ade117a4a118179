/**
 * The oracle (test/oracle.ts) against the service: fast-check compares what the service answers
 * (from its rollups) with the oracle's computation from the raw records, over random datasets,
 * batch sizes and filter combinations.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { createProject } from '../src/projects/create-project.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';
import { useTestApp } from './helpers.ts';
import { arbRun, compareWithOracle, DAYS, ENGINES, SUBJECTS, toLine, TODAY, type Filter, type OracleSubject } from './oracle.ts';

// ---- the property -----------------------------------------------------------------------------

describe('analytics against a brute-force oracle', () => {
  const ctx = useTestApp({ now: () => TODAY });

  const arbFilter = fc
    .record({
      a: fc.constantFrom(...DAYS),
      b: fc.constantFrom(...DAYS),
      engine: fc.option(fc.constantFrom(...ENGINES), { nil: null }),
      topic: fc.option(fc.constantFrom('CRM', 'Pricing'), { nil: null }),
      location: fc.option(fc.constantFrom('US', 'UK', 'FR'), { nil: null }),
      branded: fc.option(fc.boolean(), { nil: null }),
    })
    .map(({ a, b, ...rest }): Filter => ({ from: a < b ? a : b, to: a < b ? b : a, ...rest }));

  test('timeseries, ranking and citations equal the oracle on random data and filters', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbRun, { minLength: 0, maxLength: 70 }),
        fc.array(arbFilter, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 40 }),
        async (runs, filters, batchSize) => {
          const { id: workspaceId } = await createWorkspace(ctx.db, { name: 'oracle', plan: 'growth' });
          const brand = SUBJECTS[0]!;
          const { id: projectId } = await createProject(ctx.db, workspaceId, { name: brand.name, domain: brand.domain, aliases: brand.aliases });
          const ids = new Map<OracleSubject, string>([[brand, projectId]]);
          for (const s of SUBJECTS.slice(1)) {
            ids.set(s, (await addCompetitor(ctx.db, projectId, { name: s.name, domain: s.domain, aliases: s.aliases })).id);
          }
          const key = (await createApiKey(ctx.db, { workspaceId, scopes: ['read'], rateLimit: 1_000_000 })).key;

          const lines = runs.map((r) => toLine(r, randomUUID()));
          const first = await importRuns(ctx.db, projectId, lines, { batchSize });
          assert.deepEqual(first, { imported: runs.length, skipped: 0, rejected: 0, errors: [] });
          // Importing again changes nothing.
          const again = await importRuns(ctx.db, projectId, lines.slice(0, 5), { batchSize });
          assert.equal(again.imported, 0);
          assert.equal(again.skipped, Math.min(5, runs.length));

          await compareWithOracle(ctx.app, ctx.db, key, projectId, ids, runs, filters);
        },
      ),
      { numRuns: Number(process.env.ORACLE_RUNS ?? 60) },
    );
  });
});
