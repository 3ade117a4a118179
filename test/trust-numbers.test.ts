import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { drainPendingDetections } from '../src/changes/drain-pending-detections.ts';
import type { Database } from '../src/db/database.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { createProject } from '../src/projects/create-project.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { parseRunLine } from '../src/runs/parse-run-line.ts';
import { recordRuns } from '../src/runs/record-runs.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';
import { bearer, createFixture, openTestDatabase, testApp, type Fixture } from './helpers.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const DAYS = ['2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13', '2026-11-14', '2026-11-15'];

/** n runs on a day; `hooli` of them name Hooli, every one names Acme; with or without the answer text. */
function day(date: string, n: number, hooli: number, withAnswer: boolean): string[] {
  return Array.from({ length: n }, (_, i) => {
    const names = i < hooli ? ['Acme', 'Hooli'] : ['Acme'];
    return JSON.stringify({
      id: randomUUID(),
      engine: 'chatgpt',
      prompt: `prompt ${i % 3}`,
      ranAt: `${date}T${String(i % 24).padStart(2, '0')}:00:00Z`,
      status: 'ok',
      ...(withAnswer ? { answer: `We looked at ${names.join(' and ')}.` } : { mentions: names.map((subject) => ({ subject })) }),
    });
  });
}

describe('the numbers under real operations', () => {
  let database: Database;
  let app: FastifyInstance;
  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db, { now: () => NOW });
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  const get = async (fx: { projectId: string; readKey: string }, path: string) => {
    const res = await app.inject({ url: `/api/v1/projects/${fx.projectId}/${path}`, headers: bearer(fx.readKey) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  };

  async function brand(): Promise<{ workspaceId: string; projectId: string; readKey: string }> {
    const { id: workspaceId } = await createWorkspace(database.db, { name: 'late', plan: 'growth' });
    const { id: projectId } = await createProject(database.db, workspaceId, { name: 'Acme', domain: 'acme.com' });
    const readKey = (await createApiKey(database.db, { workspaceId, scopes: ['read'], rateLimit: 10_000 })).key;
    return { workspaceId, projectId, readKey };
  }

  // A competitor added later fabricated significant changes: the days before it was tracked counted
  // as measured 0%, so its first days showed "rose from 0% to 50%", pushed to webhooks.
  test('a competitor added later: no sample before it was tracked, no event across the start, and no fabricated 0%', async () => {
    const fx = await brand();
    await importRuns(database.db, fx.projectId, DAYS.slice(0, 3).flatMap((d) => day(d, 20, 10, false)));
    const { id: hooli } = await addCompetitor(database.db, fx.projectId, { name: 'Hooli', domain: 'hooli.xyz' });
    await importRuns(database.db, fx.projectId, DAYS.slice(3).flatMap((d) => day(d, 20, 10, false)));

    const range = `from=${DAYS[0]}&to=${DAYS.at(-1)}`;
    const series = (await get(fx, `visibility/timeseries?${range}&subjectType=competitor&subjectId=${hooli}`)).series;
    for (const point of series.slice(0, 3)) {
      assert.deepEqual([point.sampleSize, point.mentionRuns, point.visibility], [0, 0, null], point.day);
      assert.match(point.rateWithheld, /not sampled yet/i);
    }
    for (const point of series.slice(3)) assert.deepEqual([point.sampleSize, point.visibility], [20, 50], point.day);
    const rows = (await get(fx, `visibility/ranking?${range}`)).rows;
    assert.deepEqual(rows.map((r: any) => [r.name, r.sampleSize, r.mentionRuns, r.visibility]), [
      ['Acme', 120, 120, 100],
      ['Hooli', 60, 30, 50],
    ]);
    const events = (await get(fx, `changes?${range}`)).events;
    assert.deepEqual(events.filter((e: any) => e.subjectName === 'Hooli' && e.kind !== 'citation_gained'), [], 'no visibility or rank event across the start');
  });

  test('a competitor added later, where answers were kept: its history is found in them (the backfill)', async () => {
    const fx = await brand();
    await importRuns(database.db, fx.projectId, DAYS.slice(0, 3).flatMap((d) => day(d, 20, 6, true)));
    const { id: hooli } = await addCompetitor(database.db, fx.projectId, { name: 'Hooli', domain: 'hooli.xyz' });
    const series = (await get(fx, `visibility/timeseries?from=${DAYS[0]}&to=${DAYS[2]}&subjectType=competitor&subjectId=${hooli}`)).series;
    for (const point of series) {
      assert.deepEqual([point.sampleSize, point.mentionRuns, point.visibility, point.avgPosition], [20, 6, 30, 2], point.day);
    }
    const backfill = await database.db.selectFrom('subject_backfills').selectAll().where('subject_id', '=', hooli).executeTakeFirstOrThrow();
    assert.ok(backfill.done_at, 'the backfill finished');
    // Share of voice now counts Hooli's mentions in the denominator too: 20 Acme + 6 Hooli a day.
    const brandPoint = (await get(fx, `visibility/timeseries?from=${DAYS[0]}&to=${DAYS[0]}`)).series[0];
    assert.equal(brandPoint.shareOfVoice, 76.92);
  });

  // Every number traced to the runs behind it (operations.md section 6): a competitor added later
  // has a sample the runs alone did not show (which runs tracked it), so its n could not be recomputed.
  test('a competitor added later: each run says whether it tracked it, and its n, mentions and visibility are recomputed from the runs', async () => {
    const fx = await brand();
    await importRuns(database.db, fx.projectId, [...day(DAYS[0]!, 10, 4, true), ...day(DAYS[0]!, 8, 3, false), ...day(DAYS[1]!, 6, 2, false)]);
    const { id: hooli } = await addCompetitor(database.db, fx.projectId, { name: 'Hooli', domain: 'hooli.xyz' });
    await importRuns(database.db, fx.projectId, [...day(DAYS[1]!, 12, 5, false), ...day(DAYS[2]!, 9, 9, true)]);

    const range = `from=${DAYS[0]}&to=${DAYS[2]}`;
    const runs: { id: string; day: string; status: string; mentions: { subjectId: string }[]; untrackedSubjectIds: string[] }[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(fx, `runs?${range}&limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      runs.push(...page.runs);
      cursor = page.nextCursor;
    } while (cursor);
    assert.equal(runs.length, 45);
    const tracked = runs.filter((r) => r.status === 'ok' && !r.untrackedSubjectIds.includes(hooli));
    // Before it: the 10 with answer text were searched (tracked), the 14 without were not.
    assert.equal(runs.filter((r) => r.untrackedSubjectIds.includes(hooli)).length, 14);
    assert.ok(runs.every((r) => r.untrackedSubjectIds.every((id) => id === hooli)), 'only the later competitor is ever untracked');
    const series = (await get(fx, `visibility/timeseries?${range}&subjectType=competitor&subjectId=${hooli}`)).series;
    for (const point of series) {
      const sample = tracked.filter((r) => r.day === point.day);
      const named = sample.filter((r) => r.mentions.some((m) => m.subjectId === hooli));
      assert.deepEqual([point.sampleSize, point.mentionRuns], [sample.length, named.length], point.day);
    }
    assert.deepEqual(series.map((p: { sampleSize: number }) => p.sampleSize), [10, 12, 9]);
    const row = (await get(fx, `visibility/ranking?${range}`)).rows.find((r: { subjectId: string }) => r.subjectId === hooli);
    assert.equal(row.sampleSize, tracked.length);
    // One run alone says the same.
    const before = runs.find((r) => r.day === DAYS[1] && r.untrackedSubjectIds.includes(hooli))!;
    assert.deepEqual((await get(fx, `runs/${before.id}`)).untrackedSubjectIds, [hooli]);
  });

  // One bad line aborted a whole import (a NUL, a value out of range, an absurd date: 500).
  test('one bad line is rejected with its line number; the rest imports', async () => {
    const fx = await createFixture(database.db);
    const good = (over: Record<string, unknown> = {}) => JSON.stringify({ engine: 'claude', prompt: 'p', ranAt: '2026-11-20T09:00:00Z', status: 'ok', ...over });
    const result = await importRuns(database.db, fx.projectId, [
      good(),
      good({ prompt: 'nul \u0000 here' }),
      good({ answer: 'lone \ud800 surrogate' }),
      good({ ranAt: '9999-12-31T00:00:00Z' }),
      good({ ranAt: '1900-01-01T00:00:00Z' }),
      good({ mentions: [{ subject: 'Acme', count: 99_999_999_999 }] }),
      good(),
    ]);
    assert.equal(result.imported, 2);
    assert.equal(result.rejected, 5);
    assert.deepEqual(result.errors.map((e) => e.line), [2, 3, 4, 5, 6]);
  });

  // An interrupted import lost its change events forever: detection ran once, at the very end.
  test('an import cut short after its batches: the days it touched stay pending and the server detects them', async () => {
    const fx = await createFixture(database.db);
    const lines = [...DAYS.slice(0, 1).flatMap((d) => day(d, 20, 0, false).map((l) => l.replace('"Acme"', '"Globex"'))), ...day(DAYS[1]!, 20, 0, false)];
    // The batches land (as `runs import` writes them), then the process dies before detecting.
    const records = lines.map((l) => {
      const parsed = parseRunLine(l, NOW);
      assert.ok(parsed.ok);
      return parsed.record;
    });
    await recordRuns(database.db, fx.projectId, records.slice(0, 20));
    await recordRuns(database.db, fx.projectId, records.slice(20));
    const pending = await database.db.selectFrom('pending_detections').select('day').where('project_id', '=', fx.projectId).orderBy('day').execute();
    assert.deepEqual(pending.map((p) => p.day), DAYS.slice(0, 2));
    assert.deepEqual((await get(fx, `changes?from=${DAYS[0]}&to=${DAYS[1]}`)).events, []);
    // The server's safety net (every few seconds) evaluates what was left.
    await drainPendingDetections(database.db, new Date(Date.now() + 60_000));
    const events = (await get(fx, `changes?from=${DAYS[0]}&to=${DAYS[1]}`)).events;
    assert.ok(events.some((e: any) => e.kind === 'visibility_gained' && e.subjectName === 'Acme' && e.day === DAYS[1]), JSON.stringify(events.map((e: any) => e.summary)));
    assert.equal((await database.db.selectFrom('pending_detections').select('day').where('project_id', '=', fx.projectId).execute()).length, 0);
  });

  // Run ids were global: an id another project used was silently "skipped".
  test('a run id is the run\'s within its project: the same id in two projects is two runs', async () => {
    const a = await createFixture(database.db);
    const b = await createFixture(database.db, { name: 'other workspace' });
    const line = JSON.stringify({ id: randomUUID(), engine: 'gemini', prompt: 'p', ranAt: '2026-11-20T09:00:00Z', status: 'ok' });
    assert.equal((await importRuns(database.db, a.projectId, [line])).imported, 1);
    assert.deepEqual(await importRuns(database.db, b.projectId, [line]), { imported: 1, skipped: 0, rejected: 0, errors: [] });
    assert.equal((await importRuns(database.db, b.projectId, [line])).skipped, 1, 'and once per project');
  });

  // The same page cited with tracking parameters, a fragment or a trailing slash counted as several URLs.
  test('one page, however engines spell its URL, is one URL; the first spelling is kept for display', async () => {
    const fx = await createFixture(database.db);
    const cite = (url: string) => JSON.stringify({ id: randomUUID(), engine: 'chatgpt', prompt: 'p', ranAt: '2026-11-20T09:00:00Z', status: 'ok', citations: [{ url }] });
    await importRuns(database.db, fx.projectId, [
      cite('https://acme.com/pricing?utm_source=chatgpt.com'),
      cite('https://ACME.com/pricing/'),
      cite('https://acme.com/pricing#plans'),
      cite('https://acme.com/pricing?ref=perplexity&gclid=x'),
      cite('https://acme.com/pricing?plan=pro'),
    ]);
    const domains = (await get(fx, 'citations?from=2026-11-20&to=2026-11-20')).domains;
    assert.deepEqual(domains.map((d: any) => [d.domain, d.totalCount, d.urls]), [['acme.com', 5, 2]]);
    const stored = await database.db.selectFrom('cited_urls').select(['url', 'display_url']).where('project_id', '=', fx.projectId).orderBy('url').execute();
    assert.deepEqual(stored, [
      { url: 'https://acme.com/pricing', display_url: 'https://acme.com/pricing?utm_source=chatgpt.com' },
      { url: 'https://acme.com/pricing?plan=pro', display_url: 'https://acme.com/pricing?plan=pro' },
    ]);
    const brandPoint = (await get(fx, 'visibility/timeseries?from=2026-11-20&to=2026-11-20')).series[0];
    assert.equal(brandPoint.citations, 5);
    // The same page twice in one answer is one citation.
    await importRuns(database.db, fx.projectId, [
      JSON.stringify({ engine: 'chatgpt', prompt: 'p', ranAt: '2026-11-21T09:00:00Z', status: 'ok', citations: [{ url: 'https://acme.com/a' }, { url: 'https://acme.com/a/' }] }),
    ]);
    assert.equal((await get(fx, 'citations?from=2026-11-21&to=2026-11-21')).domains[0].totalCount, 1);
  });
});
