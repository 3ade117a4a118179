import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { layeredCache, memoryCache } from '../src/http/response-cache.ts';
import { createProject } from '../src/projects/create-project.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { bearer, createFixture, useTestApp } from './helpers.ts';

const NOW = new Date('2026-11-22T12:00:00Z');
const run = (day: string, mention: boolean) =>
  JSON.stringify({ id: randomUUID(), engine: 'chatgpt', prompt: 'p', ranAt: `${day}T09:00:00Z`, status: 'ok', mentions: mention ? [{ subject: 'Acme' }] : [] });

describe('cached reads: ETag and 304, never a stale number', () => {
  const ctx = useTestApp({ now: () => NOW });

  test('the same read again: 304 for the ETag held; a write moves the data version and the numbers come back new', async () => {
    const fx = await createFixture(ctx.db);
    await importRuns(ctx.db, fx.projectId, [run('2026-11-20', true), run('2026-11-20', false)]);
    for (const path of ['visibility/timeseries', 'visibility/ranking', 'citations', 'changes']) {
      const url = `/api/v1/projects/${fx.projectId}/${path}?from=2026-11-20&to=2026-11-20`;
      const first = await ctx.app.inject({ url, headers: bearer(fx.readKey) });
      assert.equal(first.statusCode, 200, first.body);
      const etag = String(first.headers.etag);
      assert.match(etag, /^W\/"[\w-]+"$/);
      const again = await ctx.app.inject({ url, headers: bearer(fx.readKey) });
      assert.equal(again.body, first.body, `${path}: the same body`);
      assert.equal(again.headers.etag, etag);
      const held = await ctx.app.inject({ url, headers: { ...bearer(fx.readKey), 'if-none-match': etag } });
      assert.equal(held.statusCode, 304, path);
      assert.equal(held.body, '');
      const other = await ctx.app.inject({ url, headers: { ...bearer(fx.readKey), 'if-none-match': '"something-else"' } });
      assert.equal(other.statusCode, 200);
      // `*` holds any representation there is (RFC 9110 13.1.2).
      const any = await ctx.app.inject({ url, headers: { ...bearer(fx.readKey), 'if-none-match': '*' } });
      assert.equal(any.statusCode, 304, `${path}: If-None-Match *`);
      assert.equal(any.headers.etag, etag);
    }
    const url = `/api/v1/projects/${fx.projectId}/visibility/timeseries?from=2026-11-20&to=2026-11-20`;
    const before = await ctx.app.inject({ url, headers: bearer(fx.readKey) });
    assert.equal(before.json().data.series[0].sampleSize, 2);
    await importRuns(ctx.db, fx.projectId, [run('2026-11-20', true)]);
    const after = await ctx.app.inject({ url, headers: { ...bearer(fx.readKey), 'if-none-match': String(before.headers.etag) } });
    assert.equal(after.statusCode, 200, 'the ETag no longer holds');
    assert.equal(after.json().data.series[0].sampleSize, 3);
    assert.notEqual(after.headers.etag, before.headers.etag);
    // The cache is per project and per filters: another range is computed on its own.
    const wider = await ctx.app.inject({ url: url.replace('from=2026-11-20', 'from=2026-11-19'), headers: bearer(fx.readKey) });
    assert.equal(wider.json().data.series.length, 2);
  });

  test('an error is never cached: a bad competitor id is 404 every time, and access is checked before the cache', async () => {
    const fx = await createFixture(ctx.db);
    const other = await createFixture(ctx.db, { name: 'other' });
    const url = `/api/v1/projects/${fx.projectId}/visibility/timeseries?subjectType=competitor&subjectId=${other.competitorId}`;
    for (let i = 0; i < 2; i++) assert.equal((await ctx.app.inject({ url, headers: bearer(fx.readKey) })).statusCode, 404);
    assert.equal((await ctx.app.inject({ url, headers: { ...bearer(fx.readKey), 'if-none-match': '*' } })).statusCode, 404, '`*` holds no representation where there is none');
    const refused = await ctx.app.inject({ url, headers: bearer(fx.readKey) });
    assert.equal(refused.headers.etag, undefined, 'an error names no tag a client could hold');
    const own = await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/visibility/ranking`, headers: bearer(fx.readKey) });
    assert.equal(own.statusCode, 200);
    const stranger = await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/visibility/ranking`, headers: { ...bearer(other.readKey), 'if-none-match': String(own.headers.etag) } });
    assert.equal(stranger.statusCode, 404, 'another workspace gets 404, not 304');
  });

  test('/projects: a new project moves the workspace version', async () => {
    const fx = await createFixture(ctx.db);
    const first = await ctx.app.inject({ url: '/api/v1/projects', headers: bearer(fx.readKey) });
    await createProject(ctx.db, fx.workspaceId, { name: 'Second', domain: 'second.io' });
    const second = await ctx.app.inject({ url: '/api/v1/projects', headers: { ...bearer(fx.readKey), 'if-none-match': String(first.headers.etag) } });
    assert.equal(second.statusCode, 200);
    assert.equal(second.json().data.projects.length, 2);
  });
});

describe('response caches', () => {
  test('memory: the least recently used go first past the size; layered: a shared hit is kept near', async () => {
    const near = memoryCache(10);
    await near.set('a', '12345');
    await near.set('b', '12345');
    await near.get('a');
    await near.set('c', '12345');
    assert.equal(await near.get('b'), undefined, 'b was least recently used');
    assert.equal(await near.get('a'), '12345');
    const shared = memoryCache();
    await shared.set('k', 'body');
    const layered = layeredCache(memoryCache(), shared);
    assert.equal(await layered.get('k'), 'body');
    await shared.set('k', 'changed');
    assert.equal(await layered.get('k'), 'body', 'kept near after the first hit');
  });
});
