import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../src/auth/create-api-key.ts';
import type { Database } from '../src/db/database.ts';
import { createProject } from '../src/projects/create-project.ts';
import { buildApp } from '../src/app.ts';
import { bearer, createFixture, openTestDatabase, testApp, type Fixture } from './helpers.ts';

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
      const stored = await database.db.selectFrom('traffic_hits').select('id').where('project_id', '=', project.id).execute();
      assert.equal(stored.length, 0);
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
