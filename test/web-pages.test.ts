/**
 * The app's pages and assets over HTTP (no browser): which page a request gets, the security
 * headers, the assets' caching and compression, and the location filter's endpoint.
 */
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { createUser } from '../src/accounts/create-user.ts';
import type { Database } from '../src/db/database.ts';
import { seedDemo } from '../src/demo/seed-demo.ts';
import { openTestDatabase } from './helpers.ts';

/** People are one per email across workspaces: on a server database shared by the suites, each run's are its own. */
const RUN = Math.random().toString(36).slice(2, 8);

const PASSWORD = 'correct horse battery';

/** The app with the web plugin: registered here only while src/app.ts does not register it yet. */
async function webApp(database: Database): Promise<FastifyInstance> {
  const app = await buildApp({ db: database.db });
  await app.ready();
  return app;
}

describe('the app pages', () => {
  let database: Database;
  let app: FastifyInstance;
  let cookie: string;
  let projectId: string;
  let otherCookie: string;

  before(async () => {
    database = await openTestDatabase();
    app = await webApp(database);
    const seed = await seedDemo(database.db);
    projectId = seed.projectId;
    await createUser(database.db, { workspaceId: seed.workspaceId, email: `pages-${RUN}@example.test`, password: PASSWORD, role: 'viewer' });
    const other = await seedDemo(database.db);
    await createUser(database.db, { workspaceId: other.workspaceId, email: `other-${RUN}@example.test`, password: PASSWORD, role: 'owner' });
    cookie = await signIn(`pages-${RUN}@example.test`);
    otherCookie = await signIn(`other-${RUN}@example.test`);
  });
  after(async () => {
    await app?.close();
    await database?.close();
  });

  async function signIn(email: string): Promise<string> {
    const response = await app.inject({ method: 'POST', url: '/app/session', payload: { email, password: PASSWORD } });
    assert.equal(response.statusCode, 200, response.body);
    return String(response.headers['set-cookie']).split(';')[0]!;
  }

  test('signed out, / and a project address answer the sign-in page, with the security headers', async () => {
    for (const url of ['/', `/projects/${projectId}`]) {
      const response = await app.inject({ url });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(response.headers['content-security-policy'], "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'; object-src 'none'");
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['referrer-policy'], 'same-origin');
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.match(response.body, /<label for="email">Email<\/label>/);
      assert.match(response.body, /<label for="password">Password<\/label>/);
      assert.match(response.body, /<button type="submit" class="primary">Sign in<\/button>/);
      assert.doesNotMatch(response.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
      assert.doesNotMatch(response.body, /https?:\/\//, 'nothing from another origin');
    }
  });

  test('signed in, / answers the overview, with the server day for the range switch', async () => {
    const response = await app.inject({ url: '/', headers: { cookie, 'accept-encoding': 'gzip' } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-encoding'], 'gzip');
    const html = gunzipSync(response.rawPayload).toString('utf8');
    assert.match(html, /<meta name="sightline-today" content="\d{4}-\d{2}-\d{2}">/);
    assert.match(html, /<button id="sign-out" type="button">Sign out<\/button>/);
    assert.match(html, /<script type="module" src="\/assets\/overview\.js\?v=[0-9a-f]{12}"><\/script>/);
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
  });

  const PAGES = [
    ['', 'overview', 'Overview'],
    ['/citations', 'citations', 'Citations'],
    ['/changes', 'changes', 'Changes'],
    ['/traffic', 'traffic', 'Traffic'],
    ['/prompts', 'prompts', 'Prompts &amp; runs'],
    ['/runs/00000000-0000-4000-8000-000000000000', 'run', 'Prompts &amp; runs'],
    ['/settings', 'settings', 'Settings'],
  ] as const;

  test("every page address answers its page signed in (its link in the navigation marked), the sign-in page signed out", async () => {
    for (const [suffix, script, current] of PAGES) {
      const url = `/projects/${projectId}${suffix}`;
      const signedOut = await app.inject({ url });
      assert.equal(signedOut.statusCode, 200, url);
      assert.match(signedOut.body, /<button type="submit" class="primary">Sign in<\/button>/, url);
      const page = await app.inject({ url, headers: { cookie } });
      assert.equal(page.statusCode, 200, url);
      assert.equal(page.headers['cache-control'], 'no-store');
      assert.equal(page.headers['content-security-policy'], "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'; object-src 'none'");
      assert.match(page.body, new RegExp(`<script type="module" src="/assets/${script}\\.js\\?v=[0-9a-f]{12}"></script>`), url);
      assert.match(page.body, /<meta name="sightline-today" content="\d{4}-\d{2}-\d{2}">/, url);
      assert.deepEqual([...page.body.matchAll(/<a data-nav="[a-z]+" aria-current="page">([^<]+)<\/a>/g)].map((m) => m[1]), [current], url);
      assert.equal((page.body.match(/<nav class="pages"/g) ?? []).length, 1, `${url}: the navigation once`);
      assert.doesNotMatch(page.body, /<!--#/, `${url}: every shared piece put in`);
      assert.doesNotMatch(page.body, /<script(?![^>]*\bsrc=)[^>]*>/, `${url}: no inline script`);
      assert.doesNotMatch(page.body, /\sstyle=/, `${url}: no style attribute (the CSP refuses them)`);
      assert.doesNotMatch(page.body, /(?:src|href)="https?:/, `${url}: nothing from another origin`);
    }
    // The settings before any project (to create the first one).
    const settings = await app.inject({ url: '/settings', headers: { cookie } });
    assert.match(settings.body, /src="\/assets\/settings\.js\?v=/);
  });

  test('every page is light: HTML, CSS and every script it loads under 28 kB gzipped', async (t) => {
    const gzipped = async (url: string) => (await app.inject({ url, headers: { cookie, 'accept-encoding': 'gzip' } })).rawPayload;
    const weights: Record<string, number> = {};
    for (const [suffix, script] of PAGES) {
      const html = (await app.inject({ url: `/projects/${projectId}${suffix}`, headers: { cookie } })).body;
      const assets = new Set([...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!));
      // Scripts import scripts: follow them.
      const queue = [...assets].filter((a) => a.includes('.js'));
      while (queue.length) {
        const body = (await app.inject({ url: queue.pop()! })).body;
        for (const [, name] of body.matchAll(/from '\.\/([a-z0-9-]+\.js\?v=[0-9a-f]+)'/g)) {
          const url = `/assets/${name}`;
          if (!assets.has(url)) queue.push(url);
          assets.add(url);
        }
      }
      let total = (await gzipped(`/projects/${projectId}${suffix}`)).length;
      for (const asset of assets) total += (await gzipped(asset)).length;
      weights[script] = total;
      assert.ok(total < 28_000, `${script}: ${total} bytes gzipped`);
    }
    t.diagnostic(`gzipped bytes per page: ${JSON.stringify(weights)}`);
  });

  test('assets: versioned ones kept a year, bare ones revalidated, compressed, 304 on a match', async () => {
    const page = await app.inject({ url: '/', headers: { cookie } });
    const version = /overview\.js\?v=([0-9a-f]{12})/.exec(page.body)![1]!;
    const versioned = await app.inject({ url: `/assets/overview.js?v=${version}`, headers: { 'accept-encoding': 'br, gzip' } });
    assert.equal(versioned.statusCode, 200);
    assert.equal(versioned.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(versioned.headers['content-encoding'], 'br');
    assert.match(String(versioned.headers['cache-control']), /immutable/);
    assert.equal(versioned.headers['x-content-type-options'], 'nosniff');
    const bare = await app.inject({ url: '/assets/chart.js' });
    assert.equal(bare.headers['cache-control'], 'no-cache');
    assert.equal(bare.headers['content-encoding'], undefined);
    assert.match(bare.body, /export function drawChart/);
    const again = await app.inject({ url: '/assets/chart.js', headers: { 'if-none-match': String(bare.headers.etag) } });
    assert.equal(again.statusCode, 304);
    for (const held of [`"other", ${String(bare.headers.etag)}`, `W/${String(bare.headers.etag)}`, '*']) {
      assert.equal((await app.inject({ url: '/assets/chart.js', headers: { 'if-none-match': held } })).statusCode, 304, held);
    }
    assert.equal((await app.inject({ url: '/assets/chart.js', headers: { 'if-none-match': '"other"' } })).statusCode, 200);
    const overview = await app.inject({ url: '/assets/overview.js' });
    assert.match(overview.body, new RegExp(`from '\\./chart\\.js\\?v=${version}'`), 'imports between scripts are versioned too');
    const css = await app.inject({ url: '/assets/app.css', headers: { 'accept-encoding': 'gzip;q=0, identity' } });
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(css.headers['content-encoding'], undefined);
  });

  test('only the listed assets are served', async () => {
    for (const url of ['/assets/nothing.js', '/assets/..%2Froutes.ts', '/assets/%2E%2E%2Fload-assets.ts', '/assets/sign-in.html']) {
      const response = await app.inject({ url });
      assert.equal(response.statusCode, 404, url);
      assert.equal(JSON.parse(response.body).error.code, 'not_found');
    }
  });

  test('the pages stay out of the API document', async () => {
    const { paths } = JSON.parse((await app.inject({ url: '/api/v1/openapi.json' })).body);
    assert.deepEqual(Object.keys(paths).filter((p) => p === '/' || p.startsWith('/projects') || p.startsWith('/assets') || p.startsWith('/app/web')), []);
  });

  test("locations: the project's, for a member only", async () => {
    const url = `/app/web/projects/${projectId}/locations`;
    assert.equal((await app.inject({ url })).statusCode, 401);
    const mine = await app.inject({ url, headers: { cookie } });
    assert.equal(mine.statusCode, 200);
    const { locations } = JSON.parse(mine.body).data;
    assert.ok(locations.length >= 2, mine.body);
    assert.deepEqual(locations, [...locations].sort());
    const theirs = await app.inject({ url, headers: { cookie: otherCookie } });
    assert.deepEqual(JSON.parse(theirs.body).data.locations, [], "another workspace's project has none to show");
    assert.equal((await app.inject({ url: '/app/web/projects/nope/locations', headers: { cookie } })).statusCode, 400);
  });
});
