import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Database } from '../src/db/database.ts';
import { rebuildRollups } from '../src/db/migrations/2026-11-24-0010-scale.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { parseRunLine } from '../src/runs/parse-run-line.ts';
import { prepareBatch, resolveFor } from '../src/runs/prepare-batch.ts';
import { recordPrepared, recordRuns } from '../src/runs/record-runs.ts';
import { loadWriteContext } from '../src/runs/write-context.ts';
import { snapshotRollups } from './rollup-snapshot.ts';
import { createFixture, openPrivateTestDatabase, type Fixture } from './helpers.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const URLS = ['https://acme.com/a', 'https://globex.com/b', 'https://www.g2.com/acme', 'https://acme.com/c', 'https://news.example.com/x'];
const STATUSES = ['verified', 'hallucinated', 'broken', 'unchecked', 'stale'] as const;

/** A run line: its time, prompt, topic, mentions and citations drawn from small pools, so batches share names and pages. */
const arbLine = fc
  .record({
    hour: fc.integer({ min: 0, max: 71 }),
    prompt: fc.constantFrom('best crm', 'acme pricing', 'crm for startups'),
    topic: fc.constantFrom(undefined, 'CRM', 'crm', 'Pricing'),
    failed: fc.integer({ min: 0, max: 7 }).map((n) => n === 0),
    mentions: fc.subarray(['Acme', 'Globex']),
    citations: fc.array(fc.record({ url: fc.constantFrom(...URLS), status: fc.constantFrom(...STATUSES) }), { maxLength: 3 }),
  })
  .map((r) =>
    JSON.stringify({
      id: randomUUID(),
      engine: 'chatgpt',
      prompt: r.prompt,
      topic: r.topic,
      ranAt: new Date(Date.UTC(2026, 10, 18, r.hour, 0, 0)).toISOString(),
      status: r.failed ? 'failed' : 'ok',
      mentions: r.mentions.map((subject) => ({ subject })),
      citations: r.citations,
    }),
  );

const records = (lines: readonly string[]) =>
  lines.map((line) => {
    const parsed = parseRunLine(line, NOW);
    assert.ok(parsed.ok);
    return parsed.record;
  });

// The rebuild empties every rollup, so this file has a database of its own.
describe('the write pipeline: prepared ahead, checked under the lock', () => {
  let database: Database;
  before(async () => {
    database = await openPrivateTestDatabase();
  });
  after(async () => {
    await database.close();
  });

  /** The rollups kept equal the rollups rebuilt from the runs; each page's status is its latest observation. */
  async function assertConsistent(fx: Fixture, lines: readonly string[]): Promise<void> {
    const kept = await snapshotRollups(database.db);
    await rebuildRollups(database.db);
    assert.deepEqual(await snapshotRollups(database.db), kept);
    const latest = new Map<string, { at: string; status: string }>();
    for (const line of lines) {
      const run = JSON.parse(line);
      if (run.status !== 'ok') continue;
      // A run cites a page once: its first citation of it says the status.
      const once = run.citations.filter((c: { url: string }, i: number) => run.citations.findIndex((d: { url: string }) => d.url === c.url) === i);
      for (const c of once) {
        const seen = latest.get(c.url);
        if (!seen || run.ranAt >= seen.at) latest.set(c.url, { at: run.ranAt, status: c.status });
      }
    }
    const pages = await database.db.selectFrom('cited_urls').select(['url', 'status']).where('project_id', '=', fx.projectId).execute();
    assert.deepEqual(new Map(pages.map((p) => [p.url, p.status])), new Map([...latest].map(([url, l]) => [url, l.status])));
  }

  test('property: imports in small batches, twice over the same pages and names, with a repeat, equal the rebuild', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbLine, { minLength: 1, maxLength: 30 }), fc.array(arbLine, { maxLength: 30 }), fc.integer({ min: 1, max: 7 }), async (first, second, batchSize) => {
        const fx = await createFixture(database.db);
        const a = await importRuns(database.db, fx.projectId, first, { batchSize, now: NOW });
        // A second import (a context of its own, empty) meets the names and pages of the first;
        // lines of the first again are skipped, in the same batches as new ones.
        const again = first.filter((_, i) => i % 2 === 0);
        const secondFile = [...second, ...again].sort();
        const b = await importRuns(database.db, fx.projectId, secondFile, { batchSize, now: NOW });
        assert.equal(a.imported, first.length);
        assert.deepEqual([b.imported, b.skipped], [second.length, again.length]);
        // Observations in the order they were imported (a tie in time goes to the later one).
        await assertConsistent(fx, [...first, ...secondFile.filter((line) => !again.includes(line))]);
      }),
      { numRuns: 15 },
    );
  });

  test('another writer between two batches of one context: the second batch is prepared again from what it wrote', async () => {
    const fx = await createFixture(database.db);
    const context = await loadWriteContext(database.db, fx.projectId);
    const line = (hour: number, url: string, status: string, topic = 'CRM') =>
      JSON.stringify({ id: randomUUID(), engine: 'claude', prompt: 'best crm', topic, ranAt: `2026-11-18T${String(hour).padStart(2, '0')}:00:00Z`, status: 'ok', citations: [{ url, status }] });
    const one = [line(1, 'https://acme.com/a', 'verified')];
    await recordPrepared(database.db, context, await prepareBatch(context, resolveFor(context, records(one))));
    // Prepared now, written after the others wrote: its page state and the subjects it assumed are old.
    const two = [line(5, 'https://acme.com/a', 'verified'), line(6, 'https://hooli.com/p', 'verified', 'Pricing')];
    const prepared = await prepareBatch(context, resolveFor(context, records(two)));
    const other = [line(9, 'https://acme.com/a', 'hallucinated'), line(9, 'https://hooli.com/p', 'broken', 'pricing')];
    await recordRuns(database.db, fx.projectId, records(other));
    await addCompetitor(database.db, fx.projectId, { name: 'Hooli', domain: 'hooli.com' });
    const result = await recordPrepared(database.db, context, prepared);
    assert.equal(result.landed, 2);
    assert.ok(result.subjects.some((s) => s.name === 'Hooli'), 'resolved against the subjects tracked when written');
    // One topic "Pricing" (matched without case), its page owned by Hooli, statuses by latest observation.
    const topics = await database.db.selectFrom('topics').select('name').where('project_id', '=', fx.projectId).orderBy('name').execute();
    assert.deepEqual(topics.map((t) => t.name), ['CRM', 'pricing']);
    await assertConsistent(fx, [...one, ...two, ...other]);
  });

  test('a context that holds a page wrongly is caught by the upsert, and the batch is written again from the database', async () => {
    const fx = await createFixture(database.db);
    const context = await loadWriteContext(database.db, fx.projectId);
    const line = (hour: number, status: string) =>
      JSON.stringify({ id: randomUUID(), engine: 'claude', prompt: 'p', ranAt: `2026-11-18T${String(hour).padStart(2, '0')}:00:00Z`, status: 'ok', citations: [{ url: 'https://acme.com/a', status }] });
    const lines = [line(1, 'hallucinated'), line(2, 'verified')];
    await recordPrepared(database.db, context, await prepareBatch(context, resolveFor(context, records(lines.slice(0, 1)))));
    const page = context.pages.get('https://acme.com/a')!;
    // Wrong, and not something the data version would reveal: only the upsert's check can.
    context.pages.set('https://acme.com/a', { ...page, status: 'verified' });
    const result = await recordPrepared(database.db, context, await prepareBatch(context, resolveFor(context, records(lines.slice(1)))));
    assert.equal(result.landed, 1);
    assert.equal(context.pages.get('https://acme.com/a')?.status, 'verified');
    await assertConsistent(fx, lines);
  });
});
