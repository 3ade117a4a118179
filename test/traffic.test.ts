import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../src/auth/create-api-key.ts';
import type { Database } from '../src/db/database.ts';
import { createProject } from '../src/projects/create-project.ts';
import { buildApp } from '../src/app.ts';
import { sql, type Kysely } from 'kysely';
import { migrateTo } from '../src/db/migrate.ts';
import { mulberry32 } from '../src/demo/prng.ts';
import { PLATFORMS } from '../src/traffic/crawler-registry.ts';
import { getTraffic } from '../src/traffic/get-traffic.ts';
import { pruneTraffic } from '../src/traffic/prune-traffic.ts';
import { bearer, createFixture, openPrivateTestDatabase, openTestDatabase, testApp, useTestApp, type Fixture } from './helpers.ts';

/** The migrations as src/db/migrate.ts lists them, to step the schema down and up again. */

const NOW = new Date('2026-11-22T12:00:00Z');
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CLAUDEBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const combined = (ip: string, path: string, ua: string, referrer = '-', time = '21/Nov/2026:10:00:00 +0000') =>
  `${ip} - - [${time}] "GET ${path} HTTP/1.1" 200 5120 "${referrer}" "${ua}"`;
const caddy = (path: string, ua: string, referrer?: string, ts = 1795341600.5) =>
  JSON.stringify({
    level: 'info',
    ts,
    logger: 'http.log.access',
    msg: 'handled request',
    request: {
      remote_ip: '203.0.113.9',
      proto: 'HTTP/2.0',
      method: 'GET',
      host: 'acme.com',
      uri: path,
      headers: { 'User-Agent': [ua], ...(referrer ? { Referer: [referrer] } : {}) },
    },
    status: 200,
  });

describe('traffic doors', () => {
  let database: Database;
  let app: FastifyInstance;
  let fx: Fixture;
  let ingestKey: string;

  before(async () => {
    database = await openTestDatabase();
    app = await testApp(database.db, { now: () => NOW });
    fx = await createFixture(database.db);
    ingestKey = (await createApiKey(database.db, { workspaceId: fx.workspaceId, projectId: fx.projectId, scopes: ['ingest'], rateLimit: 10_000 })).key;
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  const ingest = (body: string, options: { key?: string; project?: string; query?: string; type?: string } = {}) =>
    app.inject({
      method: 'POST',
      url: `/api/ingest/${options.project ?? fx.projectId}${options.query ?? ''}`,
      headers: { ...bearer(options.key ?? ingestKey), 'content-type': options.type ?? 'text/plain' },
      payload: body,
    });

  const beacon = (body: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'POST',
      url: '/api/beacon',
      headers: { 'content-type': 'text/plain', origin: 'https://acme.com', ...headers },
      payload: typeof body === 'string' ? body : JSON.stringify(body),
    });

  describe('GET /api/v1/bots.json', () => {
    test('is the flat registry: public, CORS-open, cacheable for an hour', async () => {
      const res = await app.inject({ url: '/api/v1/bots.json', headers: { origin: 'https://elsewhere.example' } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(String(res.headers['cache-control']), /max-age=3600/);
      const body = res.json();
      assert.equal(body.data, undefined);
      assert.ok(Number.isInteger(body.schemaVersion));
      assert.equal(body.count, body.bots.length);
      assert.ok(body.count >= 30);
      assert.match(body.source, /^http:\/\/localhost(:\d+)?\/bots$/);
      for (const bot of body.bots) {
        for (const field of ['name', 'platform', 'platformLabel', 'token']) assert.equal(typeof bot[field], 'string', field);
        assert.equal(body.platforms[bot.platform], bot.platformLabel);
      }
      for (const name of ['GPTBot', 'ClaudeBot', 'PerplexityBot', 'CCBot', 'Bytespider', 'Amazonbot']) {
        assert.ok(body.bots.some((b: { name: string }) => b.name.toLowerCase() === name.toLowerCase()), name);
      }
      const page = await app.inject({ url: '/bots' });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /text\/html/);
      assert.match(page.body, /GPTBot/);
    });

    test('lists the ai.robots.txt agents it matches, and robots.txt-only tokens apart (additive: schemaVersion 1, `bots` and `count` keep their meaning)', async () => {
      const body = (await app.inject({ url: '/api/v1/bots.json' })).json();
      assert.equal(body.schemaVersion, 1);
      assert.ok(body.count >= 150, String(body.count));
      const names = new Set(body.bots.map((b: { name: string }) => b.name));
      for (const name of ['ChatGPT Agent', 'NotebookLM', 'kagi-fetcher', 'Bravebot', 'Crawl4AI', 'KimiBot']) assert.ok(names.has(name), name);
      for (const name of ['Google-Extended', 'Applebot-Extended', 'Code', 'facebookexternalhit']) assert.ok(!names.has(name), name);
      for (const bot of body.bots) {
        assert.equal(bot.token, bot.name.toLowerCase());
        assert.ok(bot.matchCase === undefined || (bot.matchCase === true && bot.name === 'ExaBot'), bot.name);
      }
      assert.equal(body.bots.find((b: { name: string }) => b.name === 'Crawl4AI').platform, 'other');
      assert.equal(body.platforms.other, 'Other (listed by ai.robots.txt)');
      assert.deepEqual(body.robotsTxtOnly, [
        { name: 'Applebot-Extended', platform: 'apple', platformLabel: 'Apple', token: 'applebot-extended' },
        { name: 'Google-Extended', platform: 'google', platformLabel: 'Google', token: 'google-extended' },
      ]);
      assert.match((await app.inject({ url: '/bots' })).body, /Google-Extended/);
    });

    test('names its page under SIGHTLINE_PUBLIC_URL when set', async () => {
      const other = await buildApp({ db: database.db, publicUrl: 'https://sightline.example' });
      try {
        assert.equal((await other.inject({ url: '/api/v1/bots.json' })).json().source, 'https://sightline.example/bots');
      } finally {
        await other.close();
      }
    });
  });

  describe('GET /api/beacon.js', () => {
    test('serves the snippet as JavaScript, public, CORS-open, cacheable for an hour', async () => {
      const res = await app.inject({ url: '/api/beacon.js', headers: { origin: 'https://acme.com' } });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/javascript/);
      assert.match(String(res.headers['cache-control']), /max-age=3600/);
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.match(res.body, /data-project/);
      assert.match(res.body, /\/api\/beacon/);
    });
  });

  describe('POST /api/beacon', () => {
    test('an AI-referred view from the brand site is tracked and shows in the traffic report', async () => {
      const res = await beacon({ projectId: fx.projectId, url: 'https://acme.com/pricing?x=1', referrer: 'https://chatgpt.com/', sessionId: 's-1' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { data: { tracked: true } });
      assert.equal(res.headers['access-control-allow-origin'], '*');
      const sub = await beacon({ projectId: fx.projectId, url: 'https://www.acme.com/', referrer: 'https://www.perplexity.ai/search?q=x' }, { origin: 'https://www.acme.com' });
      assert.deepEqual(sub.json(), { data: { tracked: true } });
      const utm = await beacon({ projectId: fx.projectId, url: 'https://acme.com/docs?utm_source=chatgpt.com', referrer: null });
      assert.deepEqual(utm.json(), { data: { tracked: true } }, 'utm_source=chatgpt.com without a referrer');
      const report = await app.inject({ url: `/api/v1/projects/${fx.projectId}/traffic?from=2026-11-22&to=2026-11-22`, headers: bearer(fx.readKey) });
      const day = report.json().data.days[0];
      assert.ok(day.aiVisits >= 3);
      assert.ok(day.topVisitedPages.some((p: { path: string }) => p.path === '/pricing'));
    });

    test('dropped hits answer the same bytes whether or not the brand exists', async () => {
      const mismatch = await beacon({ projectId: fx.projectId, url: 'https://evil.example/', referrer: 'https://chatgpt.com/' }, { origin: 'https://evil.example' });
      const unknown = await beacon({ projectId: '00000000-0000-4000-8000-000000000000', url: 'https://acme.com/', referrer: 'https://chatgpt.com/' });
      const noOrigin = await app.inject({ method: 'POST', url: '/api/beacon', headers: { 'content-type': 'application/json' }, payload: { projectId: fx.projectId, url: 'https://acme.com/', referrer: 'https://chatgpt.com/' } });
      const notAi = await beacon({ projectId: fx.projectId, url: 'https://acme.com/', referrer: 'https://www.google.com/' });
      const lookalike = await beacon({ projectId: fx.projectId, url: 'https://acme.com/', referrer: 'https://chatgpt.com/' }, { origin: 'https://notacme.com' });
      for (const res of [mismatch, unknown, noOrigin, notAi, lookalike]) {
        assert.equal(res.statusCode, 200);
        assert.equal(res.body, '{"data":{"tracked":false}}');
      }
      assert.deepEqual(mismatch.rawPayload, unknown.rawPayload);
    });

    test('a bad body is 400 with details, and says nothing about the brand', async () => {
      const cases: [unknown, string][] = [
        ['{not json', 'body'],
        [{ url: 'https://acme.com/' }, 'projectId'],
        [{ projectId: 'nope', url: 'https://acme.com/' }, 'projectId'],
        [{ projectId: fx.projectId }, 'url'],
        [{ projectId: fx.projectId, url: '' }, 'url'],
        [{ projectId: fx.projectId, url: 'x'.repeat(2001) }, 'url'],
        [{ projectId: fx.projectId, url: 'https://acme.com/', referrer: 'r'.repeat(2001) }, 'referrer'],
        [{ projectId: fx.projectId, url: 'https://acme.com/', sessionId: 's'.repeat(65) }, 'sessionId'],
        // Fields as typed: a number or a boolean is no page address (it was read as the text "12345").
        [{ projectId: fx.projectId, url: 12345 }, 'url'],
        [{ projectId: fx.projectId, url: true }, 'url'],
        [{ projectId: fx.projectId, url: null }, 'url'],
        [{ projectId: fx.projectId, url: 'https://acme.com/', referrer: 7 }, 'referrer'],
        [{ projectId: fx.projectId, url: 'https://acme.com/', sessionId: false }, 'sessionId'],
      ];
      for (const [body, field] of cases) {
        const res = await beacon(body);
        assert.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(res.json().error.code, 'bad_request');
        assert.ok(field in res.json().error.details, `${field}: ${res.body}`);
      }
      const unknownBrand = await beacon({ projectId: '00000000-0000-4000-8000-000000000000' });
      const knownBrand = await beacon({ projectId: fx.projectId });
      assert.equal(unknownBrand.body, knownBrand.body);
    });

    test('the CORS preflight is answered for any origin', async () => {
      const res = await app.inject({
        method: 'OPTIONS',
        url: '/api/beacon',
        headers: { origin: 'https://acme.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      assert.ok(res.statusCode === 204 || res.statusCode === 200);
      assert.equal(res.headers['access-control-allow-origin'], '*');
    });

    test('over the per-address limit: 429 with retry-after', async () => {
      const limited = await testApp(database.db, { now: () => NOW });
      try {
        let last;
        for (let i = 0; i < 121; i++) {
          last = await limited.inject({ method: 'POST', url: '/api/beacon', headers: { 'content-type': 'text/plain', origin: 'https://acme.com' }, payload: JSON.stringify({ projectId: fx.projectId, url: 'https://acme.com/' }), remoteAddress: '198.51.100.7' });
        }
        assert.equal(last!.statusCode, 429);
        assert.equal(last!.json().error.code, 'rate_limited');
        assert.ok(Number(last!.headers['retry-after']) >= 1);
        const other = await limited.inject({ method: 'POST', url: '/api/beacon', headers: { 'content-type': 'text/plain', origin: 'https://acme.com' }, payload: JSON.stringify({ projectId: fx.projectId, url: 'https://acme.com/' }), remoteAddress: '198.51.100.8' });
        assert.equal(other.statusCode, 200, 'another address is not limited');
      } finally {
        await limited.close();
      }
    });
  });

  describe('POST /api/ingest/{projectId}', () => {
    test('both grammars mixed: each line a crawler hit, an AI visit or dropped; re-uploads are duplicates', async () => {
      const project = await createProject(database.db, fx.workspaceId, { name: 'Logs', domain: 'logs-brand.com' });
      const key = (await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['ingest'], rateLimit: 10_000 })).key;
      const lines = [
        combined('203.0.113.1', '/pricing', GPTBOT),
        combined('2001:db8::1', '/docs', CLAUDEBOT),
        combined('203.0.113.2', '/', CHROME, 'https://chatgpt.com/'),
        combined('203.0.113.3', '/blog?utm_source=chatgpt.com', CHROME),
        combined('203.0.113.4', '/', CHROME, 'https://www.google.com/'),
        caddy('/features', GPTBOT),
        caddy('/signup', CHROME, 'https://www.perplexity.ai/'),
        caddy('/', CHROME),
        '',
        'this is not a log line',
      ];
      const first = await ingest(lines.join('\n'), { key, project: project.id });
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(first.json().data, { linesRead: 9, crawlerHits: 3, aiVisits: 3, dropped: 3, duplicates: 0 });
      const again = await ingest(lines.slice(0, 4).join('\r\n'), { key, project: project.id, query: '?source=cf-worker' });
      assert.deepEqual(again.json().data, { linesRead: 4, crawlerHits: 0, aiVisits: 0, dropped: 0, duplicates: 4 });
      const report = await app.inject({ url: `/api/v1/projects/${project.id}/traffic?from=2026-11-21&to=2026-11-21`, headers: bearer(fx.readKey) });
      assert.equal(report.statusCode, 200);
      const day = report.json().data.days[0];
      assert.equal(day.crawlerHits + day.aiVisits >= 4, true);
      assert.ok(day.crawlers.some((c: { bot: string; platform: string }) => c.bot === 'GPTBot' && c.platform === 'openai'));
    });

    test('concurrent overlapping uploads never double-count', async () => {
      const project = await createProject(database.db, fx.workspaceId, { name: 'Race', domain: 'race-brand.com' });
      const key = (await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['ingest'], rateLimit: 10_000 })).key;
      const lines = Array.from({ length: 50 }, (_, i) => combined(`203.0.113.${i}`, `/page/${i}`, GPTBOT));
      const [a, b] = await Promise.all([
        ingest(lines.slice(0, 40).join('\n'), { key, project: project.id }),
        ingest(lines.slice(10).join('\n'), { key, project: project.id }),
      ]);
      const hits = a.json().data.crawlerHits + b.json().data.crawlerHits;
      const dups = a.json().data.duplicates + b.json().data.duplicates;
      assert.equal(hits, 50);
      assert.equal(dups, 30);
    });

    test('a line over 16,384 characters is dropped and the rest processed', async () => {
      const project = await createProject(database.db, fx.workspaceId, { name: 'Long', domain: 'long-brand.com' });
      const key = (await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['ingest'], rateLimit: 10_000 })).key;
      const long = combined('203.0.113.1', `/${'a'.repeat(16_400)}`, GPTBOT);
      const res = await ingest([long, combined('203.0.113.1', '/ok', GPTBOT)].join('\n'), { key, project: project.id });
      assert.deepEqual(res.json().data, { linesRead: 2, crawlerHits: 1, aiVisits: 0, dropped: 1, duplicates: 0 });
    });

    test('a body over 2 MiB is 413 and stores nothing', async () => {
      const project = await createProject(database.db, fx.workspaceId, { name: 'Big', domain: 'big-brand.com' });
      const key = (await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['ingest'], rateLimit: 10_000 })).key;
      const line = combined('203.0.113.1', '/x', GPTBOT);
      const body = Array.from({ length: Math.ceil(2_097_153 / (line.length + 1)) + 1 }, (_, i) => combined('203.0.113.1', `/x${i}`, GPTBOT)).join('\n');
      assert.ok(Buffer.byteLength(body) > 2_097_152);
      const res = await ingest(body, { key, project: project.id });
      assert.equal(res.statusCode, 413);
      assert.equal(res.json().error.code, 'bad_request');
      const stored = await database.db.selectFrom('traffic_daily').select('hits').where('project_id', '=', project.id).execute();
      assert.equal(stored.length, 0);
      const hashes = await database.db.selectFrom('ingest_lines').select('line_hash').where('project_id', '=', project.id).execute();
      assert.equal(hashes.length, 0);
    });

    test('regression: a Caddy line sent as application/json was read as no line at all', async () => {
      const project = await createProject(database.db, fx.workspaceId, { name: 'Json', domain: 'json-brand.com' });
      const key = (await createApiKey(database.db, { workspaceId: fx.workspaceId, scopes: ['ingest'], rateLimit: 10_000 })).key;
      const one = await ingest(caddy('/json-one', GPTBOT), { key, project: project.id, type: 'application/json' });
      assert.deepEqual(one.json().data, { linesRead: 1, crawlerHits: 1, aiVisits: 0, dropped: 0, duplicates: 0 });
      const lines = await ingest([caddy('/json-two', GPTBOT), caddy('/json-three', GPTBOT)].join('\n'), { key, project: project.id, type: 'application/json; charset=utf-8' });
      assert.deepEqual(lines.json().data, { linesRead: 2, crawlerHits: 2, aiVisits: 0, dropped: 0, duplicates: 0 });
      const png = await ingest('x', { key, project: project.id, type: 'image/png' });
      assert.equal(png.statusCode, 415);
      assert.equal(png.json().error.message, 'unsupported content type; send text/plain (log lines)', 'the 415 names what ingest reads');
      // What curl sends unless told otherwise (`--data-binary @access.log`) is read as text too.
      const curl = await ingest(caddy('/json-curl', GPTBOT), { key, project: project.id, type: 'application/x-www-form-urlencoded' });
      assert.deepEqual(curl.json().data, { linesRead: 1, crawlerHits: 1, aiVisits: 0, dropped: 0, duplicates: 0 });
    });

    test('source must be rest or cf-worker (default rest)', async () => {
      const res = await ingest(combined('203.0.113.1', '/', CHROME), { query: '?source=syslog' });
      assert.equal(res.statusCode, 400);
      assert.ok('source' in res.json().error.details);
      assert.equal((await ingest(combined('203.0.113.99', '/', CHROME))).statusCode, 200);
    });

    test('security: no key 401, a read key 403, another project 404 (as unknown), a bad id 400', async () => {
      const other = await createFixture(database.db);
      const { id: sibling } = await createProject(database.db, fx.workspaceId, { name: 'Sibling', domain: 'sibling-brand.com' });
      const line = combined('203.0.113.1', '/', GPTBOT);
      assert.equal((await app.inject({ method: 'POST', url: `/api/ingest/${fx.projectId}`, headers: { 'content-type': 'text/plain' }, payload: line })).statusCode, 401);
      assert.equal((await ingest(line, { key: fx.readKey })).statusCode, 403);
      assert.equal((await ingest(line, { project: sibling })).statusCode, 404, 'the key is bound to its brand');
      assert.equal((await ingest(line, { project: other.projectId })).statusCode, 404);
      assert.equal((await ingest(line, { project: '00000000-0000-4000-8000-000000000000' })).statusCode, 404);
      assert.equal((await ingest(line, { project: 'nope' })).statusCode, 400);
    });
  });
});

describe('behind a proxy (SIGHTLINE_TRUST_PROXY)', () => {
  test('the beacon limit counts the forwarded client address, not the proxy', async () => {
    const database = await openTestDatabase();
    const proxied = await testApp(database.db, { trustProxy: true });
    try {
      const fx = await createFixture(database.db);
      const send = (client: string) =>
        proxied.inject({
          method: 'POST',
          url: '/api/beacon',
          remoteAddress: '10.0.0.1',
          headers: { 'content-type': 'text/plain', origin: 'https://acme.com', 'x-forwarded-for': client },
          payload: JSON.stringify({ projectId: fx.projectId, url: 'https://acme.com/' }),
        });
      for (let i = 0; i < 120; i++) assert.equal((await send('198.51.100.20')).statusCode, 200);
      assert.equal((await send('198.51.100.20')).statusCode, 429);
      assert.equal((await send('198.51.100.21')).statusCode, 200, 'another visitor behind the same proxy');
    } finally {
      await proxied.close();
      await database.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Issue 9: trust under real operations. Each test is named after what broke.

describe('traffic under real operations', () => {
  const TODAY = '2026-11-22';
  let clock = new Date(`${TODAY}T12:00:00Z`);
  const ctx = useTestApp({ now: () => clock });
  let fx: Fixture;
  before(async () => {
    fx = await createFixture(ctx.db);
  });

  const brand = async (name: string) => {
    const domain = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.com`;
    const { id } = await createProject(ctx.db, fx.workspaceId, { name, domain });
    const key = (await createApiKey(ctx.db, { workspaceId: fx.workspaceId, projectId: id, scopes: ['ingest'], rateLimit: 10_000 })).key;
    return { id, domain, key };
  };
  const ingestTo = (project: { id: string; key: string }, lines: string[]) =>
    ctx.app.inject({ method: 'POST', url: `/api/ingest/${project.id}`, headers: { ...bearer(project.key), 'content-type': 'text/plain' }, payload: lines.join('\n') });
  const report = async (projectId: string, from: string, to: string) => {
    const res = await ctx.app.inject({ url: `/api/v1/projects/${projectId}/traffic?from=${from}&to=${to}`, headers: bearer(fx.readKey) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.days as TrafficDay[];
  };
  const beaconFrom = (domain: string, body: Record<string, unknown>, remoteAddress = '192.0.2.1') =>
    ctx.app.inject({ method: 'POST', url: '/api/beacon', remoteAddress, headers: { 'content-type': 'text/plain', origin: `https://${domain}` }, payload: JSON.stringify(body) });

  test('regression: a beacon flood of distinct pages grew traffic_daily without bound and stalled the traffic report', async () => {
    const flood = await brand('Flood brand');
    const cap = 1_000;
    const n = cap + 150;
    for (let i = 0; i < n; i += 25) {
      const batch = Array.from({ length: Math.min(25, n - i) }, (_, k) => i + k);
      const answers = await Promise.all(
        batch.map((j) => beaconFrom(flood.domain, { projectId: flood.id, url: `https://${flood.domain}/p/${j}`, referrer: 'https://chatgpt.com/' }, `198.18.${j >> 8}.${j & 255}`)),
      );
      for (const res of answers) assert.deepEqual(res.json(), { data: { tracked: true } });
    }
    // A page kept before the cap still counts exactly, from another platform too.
    for (const referrer of ['https://chatgpt.com/', 'https://claude.ai/', 'https://claude.ai/']) {
      await beaconFrom(flood.domain, { projectId: flood.id, url: `https://${flood.domain}/p/7`, referrer }, '198.18.200.1');
    }
    const { pages } = await ctx.db
      .selectFrom('traffic_daily')
      .select(sql<number>`count(distinct path)`.as('pages'))
      .where('project_id', '=', flood.id)
      .where('path', '<>', '(other)')
      .executeTakeFirstOrThrow();
    assert.equal(pages, cap, 'distinct pages kept per project, day and kind');
    const started = performance.now();
    const [day] = await report(flood.id, TODAY, TODAY);
    const ms = performance.now() - started;
    assert.ok(day);
    assert.equal(day.aiVisits, n + 3, 'totals stay exact');
    assert.deepEqual(day.visits, [
      { platform: 'openai', platformLabel: 'OpenAI', visits: n + 1 },
      { platform: 'anthropic', platformLabel: 'Anthropic', visits: 2 },
    ]);
    assert.equal(day.topVisitedPages.length, 10);
    assert.deepEqual(day.topVisitedPages[0], { path: '(other)', visits: 150 });
    assert.deepEqual(day.topVisitedPages[1], { path: '/p/7', visits: 4 });
    assert.ok(ms < 2_000, `report took ${ms} ms`);
  });

  test('past the cap, crawler hits keep their platform and bot: every total stays exact', async () => {
    const project = await brand('Crawl cap brand');
    // One upload over the cap: its most hit new pages take the free places (ties by path).
    const lines = Array.from({ length: 1_005 }, (_, i) => combined('203.0.113.1', `/c/${i}`, GPTBOT));
    lines.push(combined('203.0.113.2', '/c/1004', CLAUDEBOT));
    assert.deepEqual((await ingestTo(project, lines)).json().data, { linesRead: 1_006, crawlerHits: 1_006, aiVisits: 0, dropped: 0, duplicates: 0 });
    // Later: a kept page counts at its path for any bot; a new page goes to (other) under its own bot.
    const later = [combined('203.0.113.3', '/c/0', CLAUDEBOT), combined('203.0.113.3', '/brand-new', CLAUDEBOT)];
    assert.deepEqual((await ingestTo(project, later)).json().data, { linesRead: 2, crawlerHits: 2, aiVisits: 0, dropped: 0, duplicates: 0 });
    const [day] = await report(project.id, '2026-11-21', '2026-11-21');
    assert.equal(day?.crawlerHits, 1_008);
    assert.deepEqual(day.crawlers.map((c) => [c.bot, c.hits]), [['GPTBot', 1_005], ['ClaudeBot', 3]]);
    assert.deepEqual(day.topCrawledPages.slice(0, 3), [{ path: '(other)', hits: 6 }, { path: '/c/0', hits: 2 }, { path: '/c/1004', hits: 2 }]);
    const other = await ctx.db.selectFrom('traffic_daily').select(['bot', 'hits']).where('project_id', '=', project.id).where('path', '=', '(other)').orderBy('bot').execute();
    assert.deepEqual(other, [{ bot: 'ClaudeBot', hits: 1 }, { bot: 'GPTBot', hits: 5 }]);
  });

  test('the traffic report aggregated in SQL answers exactly what the JavaScript grouping answered', async () => {
    const seeded = await brand('Oracle brand');
    const random = mulberry32(9);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const bots = [['openai', 'GPTBot'], ['openai', 'OAI-SearchBot'], ['anthropic', 'ClaudeBot'], ['google', 'GoogleOther'], ['mystery', 'Gone-Bot']] as const;
    const rows = new Map<string, { project_id: string; day: string; kind: 'crawler' | 'visit'; platform: string; bot: string; path: string; hits: number }>();
    for (let i = 0; i < 600; i++) {
      const kind = random() < 0.5 ? 'crawler' : 'visit';
      const [platform, bot] = kind === 'crawler' ? pick(bots) : [pick(['openai', 'perplexity', 'google', 'mystery']), ''];
      const row = { project_id: seeded.id, day: pick(['2026-11-01', '2026-11-02', '2026-11-04']), kind, platform, bot, path: pick(['/', '/a', '/b', '/B', '/é', '/z', '/long/path', '/x?', '/ü', '/a/b/c', '/9', '/_']), hits: 1 + Math.floor(random() * 3) } as const;
      rows.set(JSON.stringify([row.day, row.kind, row.platform, row.bot, row.path]), { ...row });
    }
    await ctx.db.insertInto('traffic_daily').values([...rows.values()]).execute();
    const days = await report(seeded.id, '2026-10-31', '2026-11-05');
    assert.deepEqual(days, oracleTraffic([...rows.values()], '2026-10-31', '2026-11-05'));
    assert.equal(days.length, 6);
  });

  test('regression: one ingest line dated year 99999 (or 0000) failed the whole upload with 500', async () => {
    const project = await brand('Time brand');
    const ns99999 = Date.UTC(99_999, 0, 1) * 1e6;
    const res = await ingestTo(project, [
      caddy('/ok', GPTBOT, undefined, Date.parse(`${TODAY}T08:00:00Z`) / 1000),
      caddy('/year-99999', GPTBOT, undefined, ns99999),
      combined('203.0.113.1', '/year-0000', GPTBOT, '-', '01/Jan/0000:00:00:00 +0000'),
      combined('203.0.113.1', '/year-1999', GPTBOT, '-', '31/Dec/1999:23:59:59 +0000'),
      caddy('/year-9999', GPTBOT, undefined, Date.UTC(9_999, 11, 31) / 1000),
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().data, { linesRead: 5, crawlerHits: 1, aiVisits: 0, dropped: 4, duplicates: 0 });
    const [day] = await report(project.id, TODAY, TODAY);
    assert.deepEqual(day?.topCrawledPages, [{ path: '/ok', hits: 1 }]);
  });

  test('a line more than a day ahead of the clock, or older than 90 days, is dropped; the window edges are kept', async () => {
    const project = await brand('Window brand');
    const at = (iso: string) => Date.parse(iso) / 1000;
    const res = await ingestTo(project, [
      caddy('/tomorrow', GPTBOT, undefined, at('2026-11-23T12:00:00Z')), // now + 1 day: kept
      caddy('/too-far', GPTBOT, undefined, at('2026-11-23T12:00:01Z')),
      caddy('/first-day', GPTBOT, undefined, at('2026-08-24T00:00:00Z')), // today - 90 days, from midnight: kept
      caddy('/too-old', GPTBOT, undefined, at('2026-08-23T23:59:59Z')),
    ]);
    assert.deepEqual(res.json().data, { linesRead: 4, crawlerHits: 2, aiVisits: 0, dropped: 2, duplicates: 0 });
  });

  test('a NUL or a lone surrogate in a path or user agent never fails an upload: the path is cleaned, at most 1,000 bytes', async () => {
    const project = await brand('Nul brand');
    const res = await ingestTo(project, [
      caddy('/caddy-nul\u0000page', GPTBOT),
      caddy('/caddy-lone-\ud800', `${GPTBOT}\u0000`),
      combined('203.0.113.1', '/raw-nul\u0000page', GPTBOT),
      combined('203.0.113.1', '/raw-lone-\udc00', `${GPTBOT} \ud83d`),
      combined('203.0.113.1', `/${'語'.repeat(1_200)}`, GPTBOT),
    ]);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().data, { linesRead: 5, crawlerHits: 5, aiVisits: 0, dropped: 0, duplicates: 0 });
    const paths = (await report(project.id, '2026-11-21', TODAY)).flatMap((day) => day.topCrawledPages.map((p) => p.path));
    assert.equal(paths.length, 5);
    for (const path of paths) {
      assert.ok(!path.includes('\u0000') && path.isWellFormed(), JSON.stringify(path));
      assert.ok(Buffer.byteLength(path) <= 1_000, `${Buffer.byteLength(path)} bytes`);
    }
    assert.ok(paths.includes('/caddy-nul\uFFFDpage') && paths.includes('/raw-lone-\uFFFD'), JSON.stringify(paths));
  });

  test('regression: a NUL in a beacon url failed the beacon with 500', async () => {
    const site = await brand('Nul beacon brand');
    for (const url of ['/beacon-nul\u0000?utm_source=chatgpt.com', '/beacon-lone-\udc00?utm_source=chatgpt.com', `/${'語'.repeat(1_970)}?utm_source=chatgpt.com`]) {
      const answer = await beaconFrom(site.domain, { projectId: site.id, url, referrer: null, sessionId: 'nul\u0000\ud800' });
      assert.equal(answer.statusCode, 200, `${JSON.stringify(url.slice(0, 20))}: ${answer.body}`);
      assert.deepEqual(answer.json(), { data: { tracked: true } });
    }
    const [day] = await report(site.id, TODAY, TODAY);
    assert.equal(day?.aiVisits, 3);
    assert.ok(day.topVisitedPages.some((p) => p.path === '/beacon-nul\uFFFD'), JSON.stringify(day.topVisitedPages.map((p) => p.path.slice(0, 20))));
  });

  // On a database of its own: pruning is global, and other test files ingest at the same time.
  test('regression: ingest_lines kept the hash of every accepted line forever', async () => {
    const database = await openPrivateTestDatabase();
    let now = new Date(`${TODAY}T12:00:00Z`);
    const app = await testApp(database.db, { now: () => now });
    try {
      const own = await createFixture(database.db);
      const key = (await createApiKey(database.db, { workspaceId: own.workspaceId, projectId: own.projectId, scopes: ['ingest'], rateLimit: 10_000 })).key;
      const upload = async (lines: string[]) =>
        (await app.inject({ method: 'POST', url: `/api/ingest/${own.projectId}`, headers: { ...bearer(key), 'content-type': 'text/plain' }, payload: lines.join('\n') })).json().data;
      const at = (iso: string) => Date.parse(iso) / 1000;
      const old = caddy('/old', GPTBOT, undefined, at('2026-11-10T10:00:00Z'));
      const recent = caddy('/recent', GPTBOT, undefined, at('2026-11-20T10:00:00Z'));
      assert.deepEqual(await upload([old, recent]), { linesRead: 2, crawlerHits: 2, aiVisits: 0, dropped: 0, duplicates: 0 });
      const hashes = () => database.db.selectFrom('ingest_lines').select('day').orderBy('day').execute();
      assert.deepEqual(await hashes(), [{ day: '2026-11-10' }, { day: '2026-11-20' }]);

      // Nothing to prune yet; 90 days after 2026-11-16 the old line's day has left the window.
      assert.deepEqual(await pruneTraffic(database.db, now), { ingestLines: 0 });
      now = new Date('2027-02-15T00:00:00Z');
      assert.deepEqual(await pruneTraffic(database.db, now), { ingestLines: 1 });
      assert.deepEqual(await hashes(), [{ day: '2026-11-20' }]);
      // Re-uploaded then, the old line is too old: dropped, never counted twice.
      assert.deepEqual(await upload([old, recent]), { linesRead: 2, crawlerHits: 0, aiVisits: 0, dropped: 1, duplicates: 1 });
      // The rollup is the product's data: pruning keeps it.
      const days = await getTraffic(database.db, own.projectId, '2026-11-10', '2026-11-20');
      assert.equal(days.reduce((n, d) => n + d.crawlerHits, 0), 2);
    } finally {
      await app.close();
      await database.close();
    }
  });

  test('traffic_hits (written, never read) is gone', async () => {
    const { rows } = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_name in ('traffic_hits', 'traffic_daily', 'ingest_lines') order by 1`.execute(ctx.db);
    assert.deepEqual(rows.map((r) => r.name), ['ingest_lines', 'traffic_daily']);
  });

  test('regression: the beacon 400 (and other statuses the traffic routes answer) were missing from the OpenAPI document', async () => {
    const document = (await ctx.app.inject({ url: '/api/v1/openapi.json' })).json();
    const expected: Record<string, [string, string[]]> = {
      '/api/beacon': ['post', ['200', '400', '413', '415', '429', '500']],
      '/api/ingest/{projectId}': ['post', ['200', '400', '401', '403', '404', '413', '415', '429', '500']],
      '/api/v1/projects/{id}/traffic': ['get', ['200', '400', '401', '403', '404', '429', '500']],
      '/api/v1/bots.json': ['get', ['200']],
    };
    for (const [path, [method, statuses]] of Object.entries(expected)) {
      const responses = document.paths[path]?.[method]?.responses;
      assert.ok(responses, `${method} ${path} is documented`);
      assert.deepEqual(Object.keys(responses).sort(), statuses, `${method} ${path}`);
      for (const status of statuses.filter((s) => s !== '200')) {
        assert.equal(responses[status].content['application/json'].schema.$ref, '#/components/schemas/ErrorBody', `${path} ${status}`);
        assert.ok(responses[status].description.length > 0, `${path} ${status} description`);
      }
    }
    // And the beacon really answers them, with the error body.
    const send = (headers: Record<string, string>, payload: string) => ctx.app.inject({ method: 'POST', url: '/api/beacon', remoteAddress: '192.0.2.77', headers: { origin: 'https://acme.com', ...headers }, payload });
    const tooBig = await send({ 'content-type': 'text/plain' }, JSON.stringify({ projectId: fx.projectId, url: `https://acme.com/${'x'.repeat(9_000)}` }));
    assert.equal(tooBig.statusCode, 413);
    assert.equal(tooBig.json().error.code, 'bad_request');
    const wrongType = await send({ 'content-type': 'image/png' }, 'x');
    assert.equal(wrongType.statusCode, 415);
    assert.equal(wrongType.json().error.code, 'bad_request');
    const ingestType = await ctx.app.inject({ method: 'POST', url: `/api/ingest/${fx.projectId}`, headers: { ...bearer(fx.readKey), 'content-type': 'image/png' }, payload: 'x' });
    assert.ok([403, 415].includes(ingestType.statusCode), String(ingestType.statusCode));
  });
});

describe('migration 2026-11-23-0008 (traffic bounds)', () => {
  test('folds pages past the cap into (other), dates the kept hashes, drops traffic_hits; down restores the shape', async () => {
    const database = await openPrivateTestDatabase({ blank: true });
    const db = database.db as unknown as Kysely<any>;
    try {
      await migrateTo(db, '2026-11-22-0007-webhooks');
      const workspaceId = randomUUID();
      const projectId = randomUUID();
      await db.insertInto('workspaces').values({ id: workspaceId, name: 'w', plan: 'growth' }).execute();
      await db.insertInto('projects').values({ id: projectId, workspace_id: workspaceId, name: 'Acme', domain: 'acme.com' }).execute();
      const rows = Array.from({ length: 1_003 }, (_, i) => ({ project_id: projectId, day: '2026-11-01', kind: 'visit', platform: i % 2 ? 'openai' : 'perplexity', bot: '', path: `/p/${String(i).padStart(4, '0')}`, hits: i === 0 ? 50 : 1 }));
      await db.insertInto('traffic_daily').values(rows).execute();
      await db.insertInto('traffic_daily').values({ project_id: projectId, day: '2026-11-02', kind: 'crawler', platform: 'openai', bot: 'GPTBot', path: '/', hits: 3 }).execute();
      await db.insertInto('ingest_lines').values({ project_id: projectId, line_hash: 'a'.repeat(64), created_at: new Date('2026-10-05T23:30:00Z') }).execute();
      await db.insertInto('traffic_hits').values({ id: '00000000-0000-4000-8000-000000000001', workspace_id: workspaceId, project_id: projectId, kind: 'visit', source: 'beacon', at: new Date(), day: '2026-11-01', platform: 'openai', bot: '', path: '/', session_id: null }).execute();

      await migrateTo(db, '2026-11-23-0008-traffic-bounds');
      const pages = await db.selectFrom('traffic_daily').select(['path', 'platform', 'hits']).where('project_id', '=', projectId).where('day', '=', '2026-11-01').execute();
      assert.equal(pages.filter((p: { path: string }) => p.path !== '(other)').length, 1_000);
      assert.equal(pages.reduce((n: number, p: { hits: number }) => n + p.hits, 0), 50 + 1_002, 'every hit is still counted');
      assert.ok(pages.some((p: { path: string; hits: number }) => p.path === '/p/0000' && p.hits === 50), 'the most hit page is kept');
      // Ties at one hit: the last three paths go (/p/1000 and /p/1002 perplexity, /p/1001 openai).
      assert.deepEqual(pages.filter((p: { path: string }) => p.path === '(other)').map((p: { platform: string; hits: number }) => [p.platform, p.hits]).sort(), [['openai', 1], ['perplexity', 2]]);
      assert.equal((await db.selectFrom('traffic_daily').select('hits').where('day', '=', '2026-11-02').executeTakeFirst())?.hits, 3);
      assert.deepEqual(await db.selectFrom('ingest_lines').select('day').where('project_id', '=', projectId).execute(), [{ day: '2026-10-05' }]);
      const hitsTable = async () => Number((await sql<{ n: number }>`select count(*) as n from information_schema.tables where table_schema = current_schema() and table_name = 'traffic_hits'`.execute(db)).rows[0]?.n);
      assert.equal(await hitsTable(), 0);
      await migrateTo(db, '2026-11-22-0007-webhooks');
      assert.equal(await hitsTable(), 1, 'down restores the shape');
    } finally {
      await database.close();
    }
  });
});

interface TrafficDay {
  day: string;
  crawlerHits: number;
  crawlers: { platform: string; platformLabel: string; bot: string; hits: number }[];
  topCrawledPages: { path: string; hits: number }[];
  aiVisits: number;
  visits: { platform: string; platformLabel: string; visits: number }[];
  topVisitedPages: { path: string; visits: number }[];
}

/** The traffic report as the first version computed it, in JavaScript: the oracle for the SQL one. */
function oracleTraffic(rows: { day: string; kind: string; platform: string; bot: string; path: string; hits: number }[], from: string, to: string): TrafficDay[] {
  const label = (platform: string) => PLATFORMS[platform] ?? platform;
  const top = <K extends string>(entries: Map<string, number>, key: K) =>
    [...entries]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .slice(0, 10)
      .map(([path, n]) => ({ path, [key]: n }) as { path: string } & Record<K, number>);
  const out: TrafficDay[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const day = new Date(t).toISOString().slice(0, 10);
    const crawlers = new Map<string, { platform: string; bot: string; hits: number }>();
    const visits = new Map<string, number>();
    const crawledPages = new Map<string, number>();
    const visitedPages = new Map<string, number>();
    for (const r of rows.filter((row) => row.day === day)) {
      if (r.kind === 'crawler') {
        const key = `${r.platform}\u0000${r.bot}`;
        const c = crawlers.get(key) ?? { platform: r.platform, bot: r.bot, hits: 0 };
        c.hits += r.hits;
        crawlers.set(key, c);
        crawledPages.set(r.path, (crawledPages.get(r.path) ?? 0) + r.hits);
      } else {
        visits.set(r.platform, (visits.get(r.platform) ?? 0) + r.hits);
        visitedPages.set(r.path, (visitedPages.get(r.path) ?? 0) + r.hits);
      }
    }
    const crawlerList = [...crawlers.values()]
      .sort((a, b) => b.hits - a.hits || (a.bot < b.bot ? -1 : 1))
      .map((c) => ({ platform: c.platform, platformLabel: label(c.platform), bot: c.bot, hits: c.hits }));
    const visitList = [...visits]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .map(([platform, n]) => ({ platform, platformLabel: label(platform), visits: n }));
    out.push({
      day,
      crawlerHits: crawlerList.reduce((s, c) => s + c.hits, 0),
      crawlers: crawlerList,
      topCrawledPages: top(crawledPages, 'hits'),
      aiVisits: visitList.reduce((s, v) => s + v.visits, 0),
      visits: visitList,
      topVisitedPages: top(visitedPages, 'visits'),
    });
  }
  return out;
}
