import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { COMPRESS_MIN_BYTES } from '../src/http/compress-json.ts';
import { bearer, useTestApp } from './helpers.ts';

describe('JSON answers compressed for the clients that ask', () => {
  const ctx = useTestApp();
  let url: string;
  let key: string;

  before(async () => {
    const demo = await seedDemo(ctx.db);
    key = demo.keys.read;
    const to = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - 89 * 86_400_000).toISOString().slice(0, 10);
    url = `/api/v1/projects/${demo.projectId}/visibility/timeseries?from=${from}&to=${to}`;
  });

  const read = (path: string, acceptEncoding?: string, extra: Record<string, string> = {}) =>
    ctx.app.inject({ url: path, headers: { ...bearer(key), ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }), ...extra } });

  test('brotli where taken, else gzip: the same JSON, smaller, with Vary and a weak ETag that still answers 304', async () => {
    const plain = await read(url);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(plain.rawPayload.length > 10_000, `a 90-day series is large (${plain.rawPayload.length} bytes)`);
    assert.match(String(plain.headers.vary), /Accept-Encoding/);

    const br = await read(url, 'gzip, deflate, br');
    assert.equal(br.headers['content-encoding'], 'br');
    assert.deepEqual(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), plain.json());
    assert.ok(br.rawPayload.length < plain.rawPayload.length / 4, `${br.rawPayload.length} of ${plain.rawPayload.length} bytes`);
    assert.equal(br.headers['content-length'], String(br.rawPayload.length));
    assert.match(String(plain.headers.etag), /^W\//, 'weak: the same numbers in any coding');
    assert.equal(br.headers.etag, plain.headers.etag);
    const held = await read(url, 'br', { 'if-none-match': String(br.headers.etag) });
    assert.equal(held.statusCode, 304);
    assert.equal(held.headers.etag, br.headers.etag, 'the 304 names the ETag the 200 gave');
    assert.match(String(held.headers.vary), /Accept-Encoding/);

    const gz = await read(url, 'gzip;q=1, br;q=0');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(JSON.parse(gunzipSync(gz.rawPayload).toString()), plain.json());
    assert.equal((await read(url, 'identity, gzip;q=0')).headers['content-encoding'], undefined);
  });

  test('small answers and a small refusal go as they are; a page is coded once, by its route', async () => {
    const small = await read('/api/v1/usage', 'br');
    assert.ok(small.rawPayload.length < COMPRESS_MIN_BYTES);
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal(small.json().data.plan, 'growth');
    const refused = await ctx.app.inject({ url: '/api/v1/projects', headers: { 'accept-encoding': 'br' } });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error.code, 'unauthorized');
    const page = await ctx.app.inject({ url: '/', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(page.headers['content-encoding'], 'gzip');
    assert.match(gunzipSync(page.rawPayload).toString(), /<form/, 'coded once, by the page route');
  });
});
