import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { createProject } from '../src/projects/create-project.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';
import { useTestApp } from './helpers.ts';
import { arbRun, compareWithOracle, DAYS, FILLER, SUBJECTS, toLine, TODAY, type Filter, type GenRun, type OracleSubject } from './oracle.ts';

const [BRAND, GLOBEX, INITECH] = SUBJECTS as [OracleSubject, OracleSubject, OracleSubject];

/**
 * Runs whose answers are kept (so a competitor added half-way is searched in the earlier ones) and
 * name Initech, the competitor added during the imports, only after every other subject (so its
 * arrival moves nobody's position); each at its own second (so the latest status of a page is
 * defined whatever order the writers commit in).
 */
const arbRuns = fc
  .array(
    fc.tuple(
      arbRun,
      fc.array(fc.oneof(fc.constantFrom(...FILLER), fc.constantFrom(...BRAND.spellings, ...GLOBEX.spellings)), { maxLength: 8 }),
      fc.array(fc.constantFrom(...INITECH.spellings, 'and'), { maxLength: 3 }),
    ),
    { minLength: 30, maxLength: 120 },
  )
  .map((items) =>
    items.map(([run, tokens, tail], i): GenRun => ({ ...run, second: i, mentions: undefined, answerTokens: [...tokens, ...tail] })),
  );

// Concurrent writers of one project could subtract a citation twice, credit a URL to the wrong
// subject when a competitor arrived mid-import, or deadlock. Writers of a project now take its
// lock: three imports, a competitor added half-way and the status flips inside the imports run
// at once, and every number equals the oracle's.
describe('concurrent writers of one project', () => {
  const ctx = useTestApp({ now: () => TODAY });
  const everything: Filter = { from: DAYS[0]!, to: DAYS.at(-1)!, engine: null, topic: null, location: null, branded: null };

  test('imports, a competitor add and status flips at once: every number equals the oracle', async () => {
    await fc.assert(
      fc.asyncProperty(arbRuns, fc.integer({ min: 0, max: 60 }), fc.integer({ min: 2, max: 15 }), async (runs, delayMs, batchSize) => {
        const { id: workspaceId } = await createWorkspace(ctx.db, { name: 'concurrent', plan: 'growth' });
        const { id: projectId } = await createProject(ctx.db, workspaceId, { name: BRAND.name, domain: BRAND.domain, aliases: BRAND.aliases });
        const ids = new Map<OracleSubject, string>([[BRAND, projectId]]);
        ids.set(GLOBEX, (await addCompetitor(ctx.db, projectId, { name: GLOBEX.name, domain: GLOBEX.domain, aliases: GLOBEX.aliases })).id);
        const key = (await createApiKey(ctx.db, { workspaceId, scopes: ['read'], rateLimit: 1_000_000 })).key;

        const lines = runs.map((r) => toLine(r, randomUUID()));
        const parts = [0, 1, 2].map((k) => lines.filter((_, i) => i % 3 === k));
        const [imports] = await Promise.all([
          Promise.all(parts.map((part) => importRuns(ctx.db, projectId, part, { batchSize }))),
          (async () => {
            await sleep(delayMs);
            ids.set(INITECH, (await addCompetitor(ctx.db, projectId, { name: INITECH.name, domain: INITECH.domain, aliases: INITECH.aliases })).id);
          })(),
        ]);
        assert.equal(imports.reduce((n, r) => n + r.imported, 0), runs.length);
        await compareWithOracle(ctx.app, ctx.db, key, projectId, ids, runs, [
          everything,
          { ...everything, from: DAYS[1]!, to: DAYS[1]! },
          { ...everything, engine: 'chatgpt', branded: false },
        ]);
      }),
      { numRuns: Number(process.env.CONCURRENT_RUNS ?? 10) },
    );
  });
});
