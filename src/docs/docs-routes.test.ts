import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import type { Database } from '../db/database.ts';
import { openTestDatabase } from '../../test/helpers.ts';

/** The app as app.ts assembles it, the reference included. */
async function appWithDocs(database: Database, publicUrl?: string): Promise<FastifyInstance> {
  const app = await buildApp({ db: database.db, publicUrl });
  await app.ready();
  return app;
}

describe('GET /docs', () => {
  let database: Database;
  let app: FastifyInstance;
  let html: string;

  before(async () => {
    database = await openTestDatabase();
    app = await appWithDocs(database);
    html = (await app.inject({ url: '/docs' })).body;
  });
  after(async () => {
    await app?.close();
    await database?.close();
  });

  /** Every `src` and `href` of the page. */
  const references = () => [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);

  test('answers an HTML page under a policy that allows this origin only', async () => {
    const res = await app.inject({ url: '/docs' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'self'/);
    assert.doesNotMatch(csp, /https?:|\*|unsafe-inline|unsafe-eval/, 'no other origin, no inline or eval');
    assert.match(html, /<title>Sightline API reference<\/title>/);
    assert.match(html, /data-url="\/api\/v1\/openapi.json"/);
  });

  test('references only same-origin assets, and no inline script or style', () => {
    const refs = references();
    assert.ok(refs.length >= 4, refs.join(' '));
    for (const ref of refs) {
      assert.match(ref, /^\/(?!\/)/, `${ref} is a path on this origin`);
    }
    assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/, 'every script has a src');
    assert.doesNotMatch(html, /<style|\sstyle=/, 'no inline style');
  });

  test('each asset answers 200 with its content type, cached for a year under its version', async () => {
    const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', png: 'image/png' };
    const assets = references().filter((r) => r.startsWith('/docs/assets/'));
    assert.deepEqual(assets.map((a) => a.split('?')[0]!.split('/').pop()).sort(), ['docs.css', 'docs.js', 'favicon-32x32.png', 'swagger-ui-bundle.js', 'swagger-ui.css']);
    for (const url of assets) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], types[url.split('?')[0]!.split('.').pop()!], url);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable', url);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.ok(res.headers.etag, url);
      assert.ok(res.rawPayload.length > 100, url);
    }
  });

  test('the renderer is swagger-ui-dist from node_modules, its source-map comment dropped', async () => {
    const bundle = references().find((r) => r.includes('swagger-ui-bundle.js'))!;
    const served = (await app.inject({ url: bundle })).body;
    const dir = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json').replace(/package\.json$/, '');
    const original = readFileSync(`${dir}swagger-ui-bundle.js`, 'utf8');
    assert.equal(served.trimEnd(), original.replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '').trimEnd());
    const css = (await app.inject({ url: references().find((r) => r.includes('swagger-ui.css'))! })).body;
    assert.doesNotMatch(css, /sourceMappingURL|@import|url\((?!["']?data:)/, 'the stylesheet loads nothing (its icons are data: URLs)');
  });

  test('compressed when the client takes it: brotli first, then gzip; never the PNG', async () => {
    const url = references().find((r) => r.includes('swagger-ui-bundle.js'))!;
    const plain = (await app.inject({ url })).rawPayload;
    const br = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.ok(br.rawPayload.length < plain.length / 3);
    assert.deepEqual(brotliDecompressSync(br.rawPayload), plain);
    const gzip = await app.inject({ url, headers: { 'accept-encoding': 'gzip, br;q=0' } });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gzip.rawPayload), plain);
    const png = await app.inject({ url: references().find((r) => r.includes('.png'))!, headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(png.headers['content-encoding'], undefined);
  });

  test('a reference without the current version is revalidated; an unchanged one answers 304', async () => {
    const res = await app.inject({ url: '/docs/assets/docs.js?v=old' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-cache');
    const again = await app.inject({ url: '/docs/assets/docs.js', headers: { 'if-none-match': String(res.headers.etag) } });
    assert.equal(again.statusCode, 304);
    const page = await app.inject({ url: '/docs' });
    assert.equal((await app.inject({ url: '/docs', headers: { 'if-none-match': String(page.headers.etag) } })).statusCode, 304);
  });

  test('serves the listed files only: nothing else of node_modules or the source tree', async () => {
    for (const url of ['/docs/assets/index.html', '/docs/assets/swagger-ui-bundle.js.map', '/docs/assets/..%2F..%2Fpackage.json', '/docs/assets/package.json', '/docs/assets/docs-routes.ts']) {
      const res = await app.inject({ url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json().error.code, 'not_found', url);
    }
  });

  test('is public: no key, no session', async () => {
    const res = await app.inject({ url: '/docs', headers: { authorization: 'Bearer sl_nonsense' } });
    assert.equal(res.statusCode, 200);
  });
});
