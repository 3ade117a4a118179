import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { addPrompt } from '../src/prompts/add-prompt.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { bearer, createFixture, useTestApp } from './helpers.ts';

const NOW = new Date('2026-11-22T15:00:00Z');

describe('the answers behind every number: prompts, runs and one run', () => {
  const ctx = useTestApp({ now: () => NOW, configuredEngines: ['perplexity', 'copilot'] });
  let projectId: string;
  let readKey: string;

  before(async () => {
    const demo = await seedDemo(ctx.db, { now: NOW });
    projectId = demo.projectId;
    readKey = demo.keys.read;
  });

  const get = (path: string, key = readKey) => ctx.app.inject({ url: `/api/v1/projects/${projectId}/${path}`, headers: bearer(key) });

  test('runs: newest first, every run once across pages, filters and status, each traceable to its answer', async () => {
    const seen: { id: string; day: string; ranAt: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await get(`runs?limit=100&from=2026-11-15${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(res.statusCode, 200, res.body);
      const { runs, nextCursor, filters } = res.json().data;
      assert.equal(filters.from, '2026-11-15');
      seen.push(...runs);
      cursor = nextCursor;
      pages++;
    } while (cursor && pages < 50);
    const total = await ctx.db.selectFrom('runs').select('id').where('project_id', '=', projectId).where('day', '>=', '2026-11-15').execute();
    assert.equal(seen.length, total.length);
    assert.equal(new Set(seen.map((r) => r.id)).size, seen.length, 'no run twice');
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1]!.ranAt >= seen[i]!.ranAt, 'newest first');

    const failed = (await get('runs?status=failed&from=2026-10-26&limit=100')).json().data.runs;
    assert.ok(failed.length > 0 && failed.every((r: { status: string }) => r.status === 'failed'));
    const unanswered = (await get('runs?status=no_answer&from=2026-10-26&limit=100')).json().data.runs;
    assert.ok(unanswered.length > 0 && unanswered.every((r: { engine: string }) => ['google_ai_overviews', 'google_ai_mode', 'copilot'].includes(r.engine)));

    const engines = (await ctx.app.inject({ url: '/api/v1/engines', headers: bearer(readKey) })).json().data.engines as { id: string; key: string }[];
    const claude = engines.find((e) => e.key === 'claude')!.id;
    const filtered = (await get(`runs?engineId=${claude}&location=UK&branded=true&status=ok`)).json().data.runs;
    assert.ok(filtered.length > 0);
    assert.ok(filtered.every((r: { engine: string; location: string; branded: boolean }) => r.engine === 'claude' && r.location === 'UK' && r.branded));

    const one = seen.find((r) => (r as unknown as { mentions: unknown[]; citationCount: number }).citationCount > 0 && (r as unknown as { mentions: unknown[] }).mentions.length > 0)!;
    const detail = (await get(`runs/${one.id}`)).json().data;
    assert.equal(detail.id, one.id);
    assert.ok(detail.answer.length > 0);
    for (const m of detail.mentions) assert.ok(detail.answer.includes(m.name), `the answer names ${m.name}`);
    assert.equal(detail.citations.length, detail.citationCount);
    assert.ok(detail.citations.every((c: { status: string; domain: string }) => c.status && c.domain));
    assert.ok(detail.provider && detail.model && detail.surface && detail.latencyMs > 0);
    assert.deepEqual(detail.sources.slice(0, detail.citations.length).length, detail.citations.length);
  });

  test('a bad cursor, limit or status is 400 naming it; another project\'s run is 404', async () => {
    const bad = await get('runs?cursor=not-a-cursor');
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.json().error.details.cursor);
    const forged = Buffer.from("2026-11-01|2026-11-01 00:00:00'; drop table runs; --|x").toString('base64url');
    assert.equal((await get(`runs?cursor=${forged}`)).statusCode, 400);
    assert.equal((await get('runs?limit=101')).statusCode, 400);
    assert.equal((await get('runs?limit=0')).statusCode, 400);
    const maybe = await get('runs?status=maybe');
    assert.equal(maybe.statusCode, 400);
    assert.equal(maybe.json().error.details.status, 'must be one of ok, failed, no_answer', 'every allowed value named, not the first');
    const fx = await createFixture(ctx.db);
    await importRuns(ctx.db, fx.projectId, [JSON.stringify({ id: '5b0d7a53-31a2-4b8e-9a43-2f3a0c1d9e11', engine: 'chatgpt', prompt: 'elsewhere', ranAt: '2026-11-20T10:00:00Z', status: 'ok' })]);
    assert.equal((await get('runs/5b0d7a53-31a2-4b8e-9a43-2f3a0c1d9e11')).statusCode, 404);
    assert.equal((await get('runs/5b0d7a53-31a2-4b8e-9a43-2f3a0c1d9e11', fx.readKey)).statusCode, 404, "the key's own workspace does not hold the demo project");
    const own = await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/runs/5b0d7a53-31a2-4b8e-9a43-2f3a0c1d9e11`, headers: bearer(fx.readKey) });
    assert.equal(own.statusCode, 200);
    assert.equal(own.json().data.source, 'import');
    assert.equal(own.json().data.provider, null);
  });

  test('prompts: imported ones paused, added ones with their settings; an unset engine list is every configured engine', async () => {
    const before = (await get('prompts')).json().data.prompts;
    assert.equal(before.length, 6);
    assert.ok(before.every((p: { cadence: string; enginesChosen: boolean }) => p.cadence === 'paused' && !p.enginesChosen));
    assert.deepEqual(before[0].engines, ['perplexity', 'copilot']);
    await addPrompt(ctx.db, projectId, { text: 'crm for agencies', topic: 'crm software', locations: ['US'], engines: ['claude'], samples: 3, cadence: 'weekly' });
    const added = (await get('prompts')).json().data.prompts.find((p: { text: string }) => p.text === 'crm for agencies');
    assert.deepEqual(
      { topic: added.topic, branded: added.branded, locations: added.locations, engines: added.engines, enginesChosen: added.enginesChosen, samples: added.samples, cadence: added.cadence },
      { topic: 'CRM software', branded: false, locations: ['US'], engines: ['claude'], enginesChosen: true, samples: 3, cadence: 'weekly' },
    );
  });

  test('plan: the runs a day to detect a move, and what the daily prompts must sample for it', async () => {
    const fx = await createFixture(ctx.db);
    const plan = async (query = '') => (await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/plan${query}`, headers: bearer(fx.readKey) })).json().data;
    const empty = await plan();
    assert.equal(empty.visibility, null);
    assert.equal(empty.baseline, 50);
    assert.equal(empty.delta, 20);
    assert.equal(empty.runsPerDay, 154);
    assert.equal(empty.checksPerDay, 154);
    assert.deepEqual(empty.needed, { samples: null, checksPerDay: null, creditsPerDay: null, creditsPerMonth: null, usdPerMonth: null });
    assert.equal(empty.enough, false);
    // Two daily prompts on the configured engines (perplexity 1 credit, copilot 1), two locations each: 8 cells a sample.
    await addPrompt(ctx.db, fx.projectId, { text: 'plan one', locations: ['US', 'UK'] });
    await addPrompt(ctx.db, fx.projectId, { text: 'plan two', locations: ['US', 'UK'], engines: ['perplexity', 'copilot', 'claude'] });
    const daily = await plan('?delta=20');
    assert.deepEqual(daily.current, { checksPerDay: 8, creditsPerDay: 8 });
    assert.deepEqual(daily.needed, { samples: 20, checksPerDay: 160, creditsPerDay: 160, creditsPerMonth: 4800, usdPerMonth: 48 });
    assert.equal((await plan('?delta=10')).runsPerDay, null, 'a move of 10 points is reported at most half the time');
    // Every check of the last 28 days failed: no number of checks is known to give the runs.
    const ws = await ctx.db.selectFrom('projects').select('workspace_id').where('id', '=', fx.projectId).executeTakeFirstOrThrow();
    const promptId = (await ctx.db.selectFrom('prompts').select('id').where('project_id', '=', fx.projectId).executeTakeFirstOrThrow()).id;
    await ctx.db.insertInto('checks').values([1, 2].map((sample) => ({ project_id: fx.projectId, id: randomUUID(), workspace_id: ws.workspace_id, prompt_id: promptId, engine: 'perplexity', location: 'US', day: new Date().toISOString().slice(0, 10), sample, provider: 'perplexity', state: 'done', outcome: 'failed', run_after: new Date() }))).execute();
    const failing = await plan('?delta=20');
    assert.equal(failing.completionRate, 0);
    assert.equal(failing.runsPerDay, 154);
    assert.equal(failing.checksPerDay, null);
    assert.equal(failing.needed.samples, null);
    assert.equal((await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/plan?delta=0`, headers: bearer(fx.readKey) })).statusCode, 400);
    const demo = (await get('plan?delta=30')).json().data;
    assert.ok(demo.visibility > 0 && demo.sampleSize > 100);
    assert.ok(demo.runsPerDay > 5);
  });
});
