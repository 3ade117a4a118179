import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { importRuns } from '../src/runs/import-runs.ts';
import { encodeCursor } from '../src/runs/list-runs.ts';
import { bearer, createFixture, useTestApp } from './helpers.ts';

/**
 * What passes a route's schema but cannot be stored or computed with is a 400 naming the field,
 * never a 500 (test/fuzz-operations.test.ts looks for more of it at random, operation by operation).
 */
describe('input the database cannot hold or the calendar cannot count', () => {
  const ctx = useTestApp({ now: () => new Date('2026-11-22T12:00:00Z') });

  const refused = (res: { statusCode: number; json: () => any }, field: string, why: RegExp) => {
    assert.equal(res.statusCode, 400);
    const { error } = res.json();
    assert.equal(error.code, 'bad_request');
    assert.match(String(error.details?.[field]), why, JSON.stringify(error));
  };

  test('a NUL character in a query string, a path or a JSON body', async () => {
    const fx = await createFixture(ctx.db);
    const ranking = `/api/v1/projects/${fx.projectId}/visibility/ranking`;
    refused(await ctx.app.inject({ url: `${ranking}?location=US%00`, headers: bearer(fx.readKey) }), 'location', /NUL/);
    refused(await ctx.app.inject({ method: 'POST', url: '/app/session', payload: { email: 'a@b.example\u0000', password: 'a fine long password' } }), 'email', /NUL/);
    const deep = { email: 'a@b.example', password: 'a fine long password', extra: [[['\u0000']]] };
    const res = await ctx.app.inject({ method: 'POST', url: '/app/session', payload: deep });
    assert.ok(res.statusCode === 400 || res.statusCode === 401, 'extra fields are dropped by the schema or refused, never a 500');
    assert.equal((await ctx.app.inject({ url: ranking, headers: bearer(fx.readKey) })).statusCode, 200, 'the same read without it is answered');
  });

  test('a number that is not finite (1e999 is Infinity, which the schema bounds let through)', async () => {
    const fx = await createFixture(ctx.db);
    refused(await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/runs?limit=1e999`, headers: bearer(fx.readKey) }), 'limit', /finite/);
    refused(await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/plan?delta=-1e999`, headers: bearer(fx.readKey) }), 'delta', /finite|>=|minimum/);
  });

  test('a day outside 1900-01-01..9998-12-31, and the days at its edges', async () => {
    const fx = await createFixture(ctx.db);
    const base = `/api/v1/projects/${fx.projectId}`;
    for (const path of ['visibility/timeseries', 'visibility/ranking', 'citations', 'changes', 'traffic', 'runs', 'citation-health']) {
      refused(await ctx.app.inject({ url: `${base}/${path}?to=9999-12-31`, headers: bearer(fx.readKey) }), 'to', /from 1900-01-01 to 9998-12-31/);
      refused(await ctx.app.inject({ url: `${base}/${path}?to=0100-01-10`, headers: bearer(fx.readKey) }), 'to', /from 1900-01-01/);
      refused(await ctx.app.inject({ url: `${base}/${path}?from=1899-12-31&to=1900-01-05`, headers: bearer(fx.readKey) }), 'from', /from 1900-01-01/);
      assert.equal((await ctx.app.inject({ url: `${base}/${path}?to=9998-12-31`, headers: bearer(fx.readKey) })).statusCode, 200, path);
      assert.equal((await ctx.app.inject({ url: `${base}/${path}?to=1900-01-05`, headers: bearer(fx.readKey) })).statusCode, 200, `${path}: the default from, 1899-12-09, is counted right`);
    }
    const series = (await ctx.app.inject({ url: `${base}/visibility/timeseries?to=9998-12-31`, headers: bearer(fx.readKey) })).json().data;
    assert.equal(series.filters.from, '9998-12-04');
    assert.deepEqual([series.series.length, series.series[0].day, series.series.at(-1).day], [28, '9998-12-04', '9998-12-31']);
    const early = (await ctx.app.inject({ url: `${base}/visibility/timeseries?to=1900-01-05`, headers: bearer(fx.readKey) })).json().data;
    assert.deepEqual([early.filters.from, early.series.length, early.series[0].day], ['1899-12-09', 28, '1899-12-09']);
  });

  test('a cursor naming a day or a time the calendar has not', async () => {
    const fx = await createFixture(ctx.db);
    await importRuns(ctx.db, fx.projectId, [JSON.stringify({ engine: 'claude', prompt: 'p', ranAt: '2026-11-20T10:00:00Z', status: 'ok' })]);
    const runs = (cursor: string) => ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/runs?cursor=${cursor}`, headers: bearer(fx.readKey) });
    const id = '53afb7bb-36cf-4ea6-b8d4-a0cd10dd29a8';
    for (const [day, time] of [
      ['9999-99-99', '2026-01-01 00:00:00+00'],
      ['2026-02-30', '2026-01-01 00:00:00+00'],
      ['0000-01-01', '2026-01-01 00:00:00+00'],
      ['2026-01-01', '2026-02-30 00:00:00+00'],
      ['2026-01-01', '2026-01-01 00:00:00+99'],
    ]) {
      refused(await runs(encodeCursor(day!, time!, id)), 'cursor', /nextCursor/);
    }
    assert.equal((await runs(encodeCursor('2026-11-21', '2026-11-21 00:00:00.123456+00', id))).statusCode, 200);
  });
});
