import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { createProject } from '../src/projects/create-project.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { updateWorkspace } from '../src/workspaces/update-workspace.ts';
import { bearer, createFixture, type Fixture, useTestApp } from './helpers.ts';

const TODAY = new Date('2026-11-22T15:00:00Z');
const ENDPOINTS = ['visibility/timeseries', 'visibility/ranking', 'citations'];

describe('analytics endpoints: rules, errors and security', () => {
  const ctx = useTestApp({ now: () => TODAY });
  let fx: Fixture;

  before(async () => {
    fx = await createFixture(ctx.db);
    const runs = [];
    // 2026-11-20: 5 completed runs, 2 mention Acme; 2026-11-21: 3 completed, 1 failed; 2026-11-22: none.
    for (let i = 0; i < 5; i++) {
      runs.push({ engine: 'chatgpt', prompt: 'best crm', topic: 'CRM', ranAt: `2026-11-20T0${i}:00:00Z`, status: 'ok', mentions: i < 2 ? [{ subject: 'Acme', position: 1, sentiment: 80 }] : [] });
    }
    for (let i = 0; i < 3; i++) {
      runs.push({ engine: 'claude', prompt: 'crm pricing', branded: true, location: 'US', ranAt: `2026-11-21T0${i}:00:00Z`, status: 'ok', mentions: [{ subject: 'globex.com', position: 1 }] });
    }
    runs.push({ engine: 'claude', prompt: 'crm pricing', ranAt: '2026-11-21T05:00:00Z', status: 'failed', mentions: [{ subject: 'Acme' }] });
    await importRuns(ctx.db, fx.projectId, runs.map((r) => JSON.stringify(r)));
  });

  const get = (path: string, key = fx.readKey) => ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/${path}`, headers: bearer(key) });

  test('the default range is the 28 days ending today (UTC), one point per day', async () => {
    const res = await get('visibility/timeseries');
    assert.equal(res.statusCode, 200);
    const { filters, series } = res.json().data;
    assert.deepEqual(filters, { from: '2026-10-26', to: '2026-11-22', engineId: null, topicId: null, location: null, branded: null });
    assert.equal(series.length, 28);
    assert.equal(series[0].day, '2026-10-26');
    assert.equal(series[27].day, '2026-11-22');
    const only = await get('visibility/timeseries?to=2026-11-21');
    assert.equal(only.json().data.filters.from, '2026-10-25');
  });

  test('5 runs measured, 3 withheld as too few, 0 withheld as not sampled; the failed run counts nowhere', async () => {
    const { series } = (await get('visibility/timeseries?from=2026-11-20&to=2026-11-22')).json().data;
    assert.deepEqual(series[0], {
      day: '2026-11-20', sampleSize: 5, mentionRuns: 2, visibility: 40, ciLow: 11.76, ciHigh: 76.93,
      shareOfVoice: 100, avgPosition: 1, sentiment: 80, sentimentCount: 2, mentions: 2, citations: 0,
    });
    assert.equal(series[1].sampleSize, 3);
    assert.equal(series[1].mentionRuns, 0);
    assert.equal(series[1].visibility, null);
    assert.match(series[1].rateWithheld, /Too few runs: 3 completed runs/);
    assert.equal(series[1].shareOfVoice, 0);
    assert.equal(series[1].avgPosition, null);
    assert.equal(series[1].sentiment, null);
    assert.equal(series[2].sampleSize, 0);
    assert.match(series[2].rateWithheld, /Not sampled yet/);
    assert.deepEqual([series[2].ciLow, series[2].ciHigh], [0, 100]);
    assert.equal(series[2].shareOfVoice, null);
  });

  test('filters narrow every number and are echoed', async () => {
    const engines = (await ctx.app.inject({ url: '/api/v1/engines', headers: bearer(fx.readKey) })).json().data.engines;
    const claude = engines.find((e: { key: string }) => e.key === 'claude').id;
    const res = await get(`visibility/ranking?from=2026-11-20&to=2026-11-22&engineId=${claude}&location=US&branded=true`);
    assert.equal(res.statusCode, 200);
    const { filters, rows } = res.json().data;
    assert.deepEqual(filters, { from: '2026-11-20', to: '2026-11-22', engineId: claude, topicId: null, location: 'US', branded: true });
    assert.deepEqual(rows.map((r: { name: string }) => r.name), ['Globex', 'Acme']);
    assert.equal(rows[0].sampleSize, 3);
    assert.equal(rows[0].visibility, null);
    assert.equal(rows[0].mentionRuns, 3);
    assert.equal(rows[0].color, null);
    assert.equal(rows[1].color, '#112233');
  });

  test('a competitor series by subjectType and subjectId', async () => {
    const res = await get(`visibility/timeseries?subjectType=competitor&subjectId=${fx.competitorId}&from=2026-11-21&to=2026-11-21`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data.subject, { subjectType: 'competitor', subjectId: fx.competitorId });
    assert.equal(res.json().data.series[0].mentionRuns, 3);
  });

  test('400 with details for every invalid filter', async () => {
    const cases: [string, string][] = [
      ['from=2026-13-01', 'from'],
      ['from=2026-02-30', 'from'],
      ['to=yesterday', 'to'],
      ['from=2026-11-30&to=2026-11-01', 'from'],
      ['from=2025-01-01&to=2026-11-01', 'from'],
      ['engineId=not-a-uuid', 'engineId'],
      ['engineId=00000000-0000-4000-8000-000000000000', 'engineId'],
      ['topicId=00000000-0000-4000-8000-000000000000', 'topicId'],
      ['branded=yes', 'branded'],
      ['location=', 'location'],
    ];
    for (const endpoint of ENDPOINTS) {
      for (const [query, field] of cases) {
        const res = await get(`${endpoint}?${query}`);
        assert.equal(res.statusCode, 400, `${endpoint}?${query}: ${res.body}`);
        assert.equal(res.json().error.code, 'bad_request');
        assert.ok(field in res.json().error.details, `${endpoint}?${query} names ${field}: ${res.body}`);
      }
    }
  });

  test('a range of exactly 366 days is allowed', async () => {
    const res = await get('visibility/ranking?from=2025-11-22&to=2026-11-22');
    assert.equal(res.statusCode, 200);
  });

  test('subjectType=competitor without subjectId is 400; a subjectId that is not a competitor is 404', async () => {
    const missing = await get('visibility/timeseries?subjectType=competitor');
    assert.equal(missing.statusCode, 400);
    assert.ok('subjectId' in missing.json().error.details);
    const stranger = await get('visibility/timeseries?subjectType=competitor&subjectId=00000000-0000-4000-8000-000000000000');
    assert.equal(stranger.statusCode, 404);
    assert.equal(stranger.json().error.code, 'not_found');
    const brandAsCompetitor = await get(`visibility/timeseries?subjectType=competitor&subjectId=${fx.projectId}`);
    assert.equal(brandAsCompetitor.statusCode, 404);
  });

  test('404 for an unknown project, another workspace\'s project, and another project for a project-scoped key', async () => {
    const other = await createFixture(ctx.db);
    const { id: sibling } = await createProject(ctx.db, fx.workspaceId, { name: 'Sibling', domain: 'sibling.io' });
    const scoped = await createApiKey(ctx.db, { workspaceId: fx.workspaceId, projectId: sibling, scopes: ['read'] });
    for (const endpoint of [...ENDPOINTS, 'topics']) {
      const unknown = await ctx.app.inject({ url: `/api/v1/projects/00000000-0000-4000-8000-000000000000/${endpoint}`, headers: bearer(fx.readKey) });
      const foreign = await ctx.app.inject({ url: `/api/v1/projects/${other.projectId}/${endpoint}`, headers: bearer(fx.readKey) });
      const sideways = await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/${endpoint}`, headers: bearer(scoped.key) });
      for (const res of [unknown, foreign, sideways]) {
        assert.equal(res.statusCode, 404, `${endpoint}: ${res.body}`);
        assert.deepEqual(Object.keys(res.json().error).sort(), ['code', 'message']);
      }
      // Unknown and foreign look the same apart from the id in the message.
      assert.equal(unknown.json().error.message.replace(/[0-9a-f-]{36}/, 'ID'), foreign.json().error.message.replace(/[0-9a-f-]{36}/, 'ID'));
      const own = await ctx.app.inject({ url: `/api/v1/projects/${sibling}/${endpoint}`, headers: bearer(scoped.key) });
      assert.equal(own.statusCode, 200, `${endpoint}: ${own.body}`);
    }
  });

  test('a path id that is not a UUID is 400 with details.id', async () => {
    for (const endpoint of [...ENDPOINTS, 'topics']) {
      const res = await ctx.app.inject({ url: `/api/v1/projects/nope/${endpoint}`, headers: bearer(fx.readKey) });
      assert.equal(res.statusCode, 400);
      assert.ok('id' in res.json().error.details);
    }
  });

  test('401, 403 (scope) and 403 (plan) on every analytics endpoint', async () => {
    const ingest = await createApiKey(ctx.db, { workspaceId: fx.workspaceId, scopes: ['ingest'] });
    const free = await createFixture(ctx.db, { plan: 'free' });
    for (const endpoint of ENDPOINTS) {
      assert.equal((await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/${endpoint}` })).statusCode, 401);
      assert.equal((await get(endpoint, ingest.key)).statusCode, 403);
      const res = await ctx.app.inject({ url: `/api/v1/projects/${free.projectId}/${endpoint}`, headers: bearer(free.readKey) });
      assert.equal(res.statusCode, 403);
    }
    await updateWorkspace(ctx.db, free.workspaceId, { apiAccess: true });
    assert.equal((await ctx.app.inject({ url: `/api/v1/projects/${free.projectId}/citations`, headers: bearer(free.readKey) })).statusCode, 200);
  });

  test('engines and topics list the ids the filters take', async () => {
    const engines = (await ctx.app.inject({ url: '/api/v1/engines', headers: bearer(fx.readKey) })).json().data.engines;
    assert.deepEqual(engines.map((e: { key: string }) => e.key), ['chatgpt', 'perplexity', 'gemini', 'google_ai_overviews', 'google_ai_mode', 'claude', 'copilot']);
    const topics = (await get('topics')).json().data.topics;
    assert.deepEqual(topics.map((t: { name: string }) => t.name), ['CRM']);
    const filtered = await get(`visibility/timeseries?topicId=${topics[0].id}&from=2026-11-20&to=2026-11-21`);
    assert.deepEqual(filtered.json().data.series.map((p: { sampleSize: number }) => p.sampleSize), [5, 0]);
  });
});
