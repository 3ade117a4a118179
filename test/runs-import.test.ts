import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../src/db/database.ts';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { demoRunLines } from '../src/demo/demo-runs.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { bearer, createFixture, openTestDatabase, testApp, type Fixture } from './helpers.ts';

const run = (over: Record<string, unknown> = {}) =>
  JSON.stringify({ engine: 'chatgpt', prompt: 'best crm', ranAt: '2026-11-20T09:00:00Z', status: 'ok', ...over });

describe('runs import', () => {
  let database: Database;
  let app: FastifyInstance;

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db, { now: () => new Date('2026-11-22T12:00:00Z') });
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  const series = async (fx: Fixture, query = 'from=2026-11-20&to=2026-11-20') =>
    (await app.inject({ url: `/api/v1/projects/${fx.projectId}/visibility/timeseries?${query}`, headers: bearer(fx.readKey) })).json().data.series;

  test('invalid lines are reported by number with a reason; blank lines are ignored; the rest imports', async () => {
    const fx = await createFixture(database.db);
    const result = await importRuns(database.db, fx.projectId, [run(), '', 'not json', run({ engine: 'bing' }), '   ', run({ status: 'failed' })]);
    assert.equal(result.imported, 2);
    assert.equal(result.rejected, 2);
    assert.equal(result.skipped, 0);
    assert.deepEqual(result.errors.map((e) => e.line), [3, 4]);
    assert.match(result.errors[1]!.message, /engine/);
  });

  test('ids make re-imports idempotent, within a file and across imports', async () => {
    const fx = await createFixture(database.db);
    const id = randomUUID();
    const first = await importRuns(database.db, fx.projectId, [run({ id, mentions: [{ subject: 'Acme' }] }), run({ id, mentions: [{ subject: 'Acme' }] })]);
    assert.deepEqual([first.imported, first.skipped], [1, 1]);
    const second = await importRuns(database.db, fx.projectId, [run({ id: id.toUpperCase(), mentions: [{ subject: 'Acme' }] })]);
    assert.deepEqual([second.imported, second.skipped], [0, 1]);
    const [point] = await series(fx);
    assert.equal(point.sampleSize, 1);
    assert.equal(point.mentions, 1);
  });

  test('a failed run counts nowhere: not in the sample, not as "not mentioned", not in citations', async () => {
    const fx = await createFixture(database.db);
    const lines = Array.from({ length: 5 }, (_, i) => run({ ranAt: `2026-11-20T0${i}:00:00Z`, mentions: [{ subject: 'Acme' }] }));
    lines.push(run({ status: 'failed', mentions: [{ subject: 'Globex' }], citations: [{ url: 'https://acme.com/x', status: 'verified' }] }));
    await importRuns(database.db, fx.projectId, lines);
    const [point] = await series(fx);
    assert.equal(point.sampleSize, 5);
    assert.equal(point.visibility, 100);
    assert.equal(point.shareOfVoice, 100);
    assert.equal(point.citations, 0);
    const domains = (await app.inject({ url: `/api/v1/projects/${fx.projectId}/citations?from=2026-11-20&to=2026-11-20`, headers: bearer(fx.readKey) })).json().data.domains;
    assert.deepEqual(domains, []);
  });

  test('mentions are found in the answer when none are listed; untracked names are left out; a subject listed twice rejects the line', async () => {
    const fx = await createFixture(database.db);
    const result = await importRuns(database.db, fx.projectId, [
      run({ answer: 'Globex and ACME lead; acme.com is cheaper than globex.com, says Acme.' }),
      run({ mentions: [{ subject: 'Umbrella', position: 1 }, { subject: 'acme.com', position: 2, sentiment: 60, count: 2 }] }),
      run({ mentions: [{ subject: 'Acme' }, { subject: 'ACME.COM' }] }),
    ]);
    assert.equal(result.imported, 2);
    assert.equal(result.errors.length, 1);
    assert.equal(result.errors[0]!.line, 3);
    assert.match(result.errors[0]!.message, /again/);
    const [brand] = await series(fx);
    // answer: Acme named 3 times at position 2; list: 2 times at position 2, sentiment 60.
    assert.equal(brand.mentionRuns, 2);
    assert.equal(brand.mentions, 5);
    assert.equal(brand.avgPosition, 2);
    assert.equal(brand.sentiment, 60);
    assert.equal(brand.sentimentCount, 1);
    assert.equal(brand.shareOfVoice, 71.43); // 5 of 7 tracked mentions (Globex: 2)
  });

  test('citations: subdomains count for their subject and group under the registrable domain; hallucinated excluded from cited counts', async () => {
    const fx = await createFixture(database.db);
    await importRuns(database.db, fx.projectId, [
      run({
        citations: [
          { url: 'https://docs.acme.com/a', status: 'verified' },
          { url: 'https://www.acme.com/', status: 'broken' },
          { url: 'https://acme.com/ai-feature', status: 'hallucinated' },
          { url: 'https://globex.com/', status: 'stale' },
        ],
      }),
      run({ ranAt: '2026-11-20T10:00:00Z', citations: [{ url: 'https://docs.acme.com/a' }] }),
    ]);
    const [point] = await series(fx);
    assert.equal(point.citations, 3); // docs.acme.com twice (status now unchecked) and www.acme.com; not the hallucinated one
    const domains = (await app.inject({ url: `/api/v1/projects/${fx.projectId}/citations?from=2026-11-20&to=2026-11-20`, headers: bearer(fx.readKey) })).json().data.domains;
    assert.deepEqual(domains[0], {
      domain: 'acme.com',
      citedCount: 3,
      totalCount: 4,
      statusCounts: { verified: 0, broken: 1, hallucinated: 1, unchecked: 2, stale: 0 },
      urls: 3,
      articleTypes: ['docs', 'homepage', 'other'],
      lastSeen: '2026-11-20',
      sourceType: 'owned',
    });
    assert.equal(domains[1].domain, 'globex.com');
    assert.equal(domains[1].sourceType, 'competitor');
  });

  test("a URL's status is its latest observation by run time, whatever the import order", async () => {
    const fx = await createFixture(database.db);
    await importRuns(database.db, fx.projectId, [run({ ranAt: '2026-11-20T12:00:00Z', citations: [{ url: 'https://g2.com/acme', status: 'verified' }] })]);
    await importRuns(database.db, fx.projectId, [run({ ranAt: '2026-11-20T08:00:00Z', citations: [{ url: 'https://g2.com/acme', status: 'broken' }] })]);
    const domains = (await app.inject({ url: `/api/v1/projects/${fx.projectId}/citations?from=2026-11-20&to=2026-11-20`, headers: bearer(fx.readKey) })).json().data.domains;
    assert.deepEqual(domains[0].statusCounts, { verified: 2, broken: 0, hallucinated: 0, unchecked: 0, stale: 0 });
  });

  test("citations follow a URL's status into and out of hallucinated", async () => {
    const fx = await createFixture(database.db);
    const cite = (hour: number, status: string) => run({ ranAt: `2026-11-20T${String(hour).padStart(2, '0')}:00:00Z`, citations: [{ url: 'https://acme.com/x', status }] });
    await importRuns(database.db, fx.projectId, [cite(1, 'verified'), cite(2, 'verified')]);
    assert.equal((await series(fx))[0].citations, 2);
    await importRuns(database.db, fx.projectId, [cite(3, 'hallucinated')]);
    assert.equal((await series(fx))[0].citations, 0);
    await importRuns(database.db, fx.projectId, [cite(0, 'verified')]); // older: the status stays hallucinated
    assert.equal((await series(fx))[0].citations, 0);
    await importRuns(database.db, fx.projectId, [cite(4, 'stale')]);
    assert.equal((await series(fx))[0].citations, 5);
  });

  test('a competitor added after its pages were cited is credited with them; the most specific domain owns a page', async () => {
    const fx = await createFixture(database.db);
    await importRuns(database.db, fx.projectId, [
      run({ citations: [{ url: 'https://shop.acme.com/a' }, { url: 'https://acme.com/b' }, { url: 'https://newco.io/c' }, { url: 'https://newco.io/d', status: 'hallucinated' }] }),
    ]);
    assert.equal((await series(fx))[0].citations, 2);
    const { addCompetitor } = await import('../src/projects/add-competitor.ts');
    const shop = await addCompetitor(database.db, fx.projectId, { name: 'Acme Shop', domain: 'shop.acme.com' });
    const newco = await addCompetitor(database.db, fx.projectId, { name: 'NewCo', domain: 'newco.io' });
    assert.equal((await series(fx))[0].citations, 1, 'the brand keeps acme.com/b only');
    const of = async (id: string) => (await series(fx, `from=2026-11-20&to=2026-11-20&subjectType=competitor&subjectId=${id}`))[0].citations;
    assert.equal(await of(shop.id), 1);
    assert.equal(await of(newco.id), 1, 'the hallucinated page does not count');
    const ranking = (await app.inject({ url: `/api/v1/projects/${fx.projectId}/visibility/ranking?from=2026-11-20&to=2026-11-20`, headers: bearer(fx.readKey) })).json().data.rows;
    assert.deepEqual(
      Object.fromEntries(ranking.map((r: { name: string; citations: number }) => [r.name, r.citations])),
      { Acme: 1, Globex: 0, 'Acme Shop': 1, NewCo: 1 },
    );
  });

  test('an unknown project is not_found', async () => {
    await assert.rejects(importRuns(database.db, '00000000-0000-4000-8000-000000000000', [run()]), /no project/);
  });
});

describe('demo data', () => {
  let database: Database;
  let app: FastifyInstance;
  const now = new Date('2026-11-22T08:00:00Z');

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db, { now: () => now });
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  test('is deterministic for a project and a day', () => {
    const a = demoRunLines('6f1d0c2a-7c1e-4f0a-9a51-000000000001', new Date('2026-11-22T12:00:00Z'));
    const b = demoRunLines('6f1d0c2a-7c1e-4f0a-9a51-000000000001', new Date('2026-11-22T12:00:00Z'));
    assert.deepEqual(a, b);
    assert.notDeepEqual(demoRunLines('6f1d0c2a-7c1e-4f0a-9a51-000000000002', new Date('2026-11-22T12:00:00Z')), a);
  });

  test('has no run later than the moment it is made: today\'s runs fill the part of the day gone by, in order', () => {
    for (const now of ['2026-11-22T00:00:30Z', '2026-11-22T09:15:00Z', '2026-11-22T23:59:59Z']) {
      const lines = demoRunLines('6f1d0c2a-7c1e-4f0a-9a51-000000000001', new Date(now)).map((l) => JSON.parse(l) as { id: string; ranAt: string });
      const today = lines.filter((r) => r.ranAt.startsWith('2026-11-22'));
      assert.ok(today.length > 0);
      assert.ok(lines.every((r) => Date.parse(r.ranAt) <= Date.parse(now)), now);
      const times = today.map((r) => Date.parse(r.ranAt));
      const noonToday = demoRunLines('6f1d0c2a-7c1e-4f0a-9a51-000000000001', new Date('2026-11-22T12:00:00Z'))
        .map((l) => JSON.parse(l) as { ranAt: string })
        .filter((r) => r.ranAt.startsWith('2026-11-22'))
        .map((r) => Date.parse(r.ranAt));
      // Compressed into the morning gone by, today's runs keep the order they have at any other time.
      const order = (ts: number[]) => ts.map((_, i) => i).sort((a, b) => ts[a]! - ts[b]! || a - b);
      assert.deepEqual(order(times), order(noonToday), now);
      // The same runs as on any other time of the day: ids, and the days before today, unchanged.
      const noon = demoRunLines('6f1d0c2a-7c1e-4f0a-9a51-000000000001', new Date('2026-11-22T12:00:00Z')).map((l) => JSON.parse(l) as { id: string; ranAt: string });
      assert.deepEqual(lines.map((r) => r.id), noon.map((r) => r.id));
      assert.deepEqual(lines.filter((r) => !r.ranAt.startsWith('2026-11-22')), noon.filter((r) => !r.ranAt.startsWith('2026-11-22')));
    }
  });

  test('holds a significant visibility change whatever the project id (the PRNG seed)', async () => {
    const { wilsonBounds } = await import('../src/analytics/statistics.ts');
    for (let i = 0; i < 200; i++) {
      const byDay = new Map<string, { n: number; k: number }>();
      for (const line of demoRunLines(randomUUID(), new Date('2026-11-22T12:00:00Z'))) {
        const run = JSON.parse(line);
        if (run.status !== 'ok') continue;
        const day = run.ranAt.slice(0, 10);
        const c = byDay.get(day) ?? { n: 0, k: 0 };
        c.n++;
        if (run.mentions.some((m: { subject: string }) => m.subject === 'Acme CRM')) c.k++;
        byDay.set(day, c);
      }
      const measured = [...byDay.entries()].filter(([, c]) => c.n >= 5).sort(([a], [b]) => (a < b ? -1 : 1));
      const found = measured.some(([, c], j) => {
        const prev = measured[j - 1]?.[1];
        if (!prev) return false;
        const now = wilsonBounds(c.k, c.n);
        const then = wilsonBounds(prev.k, prev.n);
        return Math.abs((100 * c.k) / c.n - (100 * prev.k) / prev.n) >= 10 && (now.low > then.high || now.high < then.low);
      });
      assert.ok(found, `seed ${i}`);
    }
  });

  test('shows every endpoint real numbers: 28 days, all engines, an unsampled day, thin days, five statuses, a significant change', async () => {
    const demo = await seedDemo(database.db, { now });
    const h = bearer(demo.keys.read);
    const series = (await app.inject({ url: `/api/v1/projects/${demo.projectId}/visibility/timeseries`, headers: h })).json().data.series;
    assert.equal(series.length, 28);
    assert.equal(series.at(-1).day, '2026-11-22');
    assert.ok(series.some((p: { sampleSize: number }) => p.sampleSize === 0), 'a day not sampled');
    assert.ok(series.some((p: { sampleSize: number }) => p.sampleSize > 0 && p.sampleSize < 5), 'a day under the minimum');
    const measured = series.filter((p: { visibility: number | null }) => p.visibility !== null);
    const significant = measured.some((p: { ciLow: number; ciHigh: number; visibility: number }, i: number) => {
      const prev = measured[i - 1];
      return prev && Math.abs(p.visibility - prev.visibility) >= 10 && (p.ciLow > prev.ciHigh || p.ciHigh < prev.ciLow);
    });
    assert.ok(significant, 'a significant day-over-day visibility change');
    const ranking = (await app.inject({ url: `/api/v1/projects/${demo.projectId}/visibility/ranking`, headers: h })).json().data.rows;
    assert.equal(ranking.length, 4);
    const domains = (await app.inject({ url: `/api/v1/projects/${demo.projectId}/citations`, headers: h })).json().data.domains;
    for (const status of ['verified', 'broken', 'hallucinated', 'unchecked', 'stale']) {
      assert.ok(domains.some((d: { statusCounts: Record<string, number> }) => d.statusCounts[status]! > 0), status);
    }
    const engines = (await app.inject({ url: '/api/v1/engines', headers: h })).json().data.engines;
    for (const engine of engines) {
      const rows = (await app.inject({ url: `/api/v1/projects/${demo.projectId}/visibility/ranking?engineId=${engine.id}`, headers: h })).json().data.rows;
      assert.ok(rows[0].sampleSize > 0, engine.key);
    }
    const topics = (await app.inject({ url: `/api/v1/projects/${demo.projectId}/topics`, headers: h })).json().data.topics;
    assert.ok(topics.length >= 3);
  });
});
