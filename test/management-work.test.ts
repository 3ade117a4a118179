import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createUser } from '../src/accounts/create-user.ts';
import { createOutbound, type Outbound } from '../src/outbound/outbound.ts';
import { parseResolveMap } from '../src/outbound/resolve-map.ts';
import { ENGINE_ADAPTERS } from '../src/sampling/providers/adapters.ts';
import { loadSamplingConfig } from '../src/sampling/providers/providers-config.ts';
import { createChecker } from '../src/verification/checker.ts';
import { dnsHealth } from '../src/verification/dns-health.ts';
import { RUNS_UPLOAD_LIMIT } from '../src/management/work-routes.ts';
import { bearer, createFixture, openTestDatabase, testApp, type Fixture } from './helpers.ts';
import type { Database } from '../src/db/database.ts';
import type { FastifyInstance } from 'fastify';

const password = 'a fine long password';
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

/** acme.com, served locally: /pricing is a page, anything else is not found. */
function site(): Server {
  return createServer((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    if (req.url === '/pricing') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Acme pricing</title></head><body><h1>Pricing</h1><p>Plans for teams of every size, billed monthly or yearly.</p></body></html>');
    res.writeHead(404, { 'content-type': 'text/html' }).end('<html><head><title>Not found</title></head><body>no such page here at all</body></html>');
  });
}

describe('the management API: runs import, sampling and verification from the app', () => {
  let database: Database;
  let app: FastifyInstance;
  let bare: FastifyInstance;
  let server: Server;
  let outbound: Outbound;
  let port: number;
  let fx: Fixture;
  let owner: { cookie: string; csrf: string };
  let viewer: { cookie: string; csrf: string };

  before(async () => {
    database = await openTestDatabase();
    server = site();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    outbound = createOutbound({ userAgent: 'SightlineBot/test (+http://localhost/bots)', resolve: parseResolveMap(`acme.com:${port}:127.0.0.1`) });
    // No provider key: every engine is unconfigured, so a cycle's checks are skipped and never charged.
    const sampling = loadSamplingConfig({});
    const common = { db: database.db, importBatch: 2 };
    app = await testApp(database.db, {
      ...common,
      sampler: { db: database.db, outbound, sampling, providers: sampling.providers, adapters: ENGINE_ADAPTERS, now: () => new Date() },
      verifier: { db: database.db, check: createChecker(outbound), dnsWorks: dnsHealth(outbound), now: () => new Date(), recheckDays: 7, concurrency: 2 },
    });
    bare = await testApp(database.db, common);
    fx = await createFixture(database.db);
    await createUser(database.db, { workspaceId: fx.workspaceId, email: 'owner@work.example', password, role: 'owner' });
    await createUser(database.db, { workspaceId: fx.workspaceId, email: 'viewer@work.example', password, role: 'viewer' });
    owner = await signIn('owner@work.example');
    viewer = await signIn('viewer@work.example');
  });
  after(async () => {
    await app.close();
    await bare.close();
    await outbound.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await database.close();
  });

  async function signIn(email: string) {
    const res = await app.inject({ method: 'POST', url: '/app/session', payload: { email, password } });
    assert.equal(res.statusCode, 200);
    return { cookie: String(res.headers['set-cookie']).split(';')[0]!, csrf: res.json().data.csrfToken as string };
  }
  const runCount = async () => Number((await database.db.selectFrom('runs').select((eb) => eb.fn.countAll<string>().as('n')).where('project_id', '=', fx.projectId).executeTakeFirstOrThrow()).n);
  const as = (on: FastifyInstance, who: { cookie: string; csrf: string }, method: 'GET' | 'POST', url: string, payload?: object | string, contentType?: string) =>
    on.inject({ method, url, headers: { cookie: who.cookie, 'x-csrf-token': who.csrf, ...(contentType ? { 'content-type': contentType } : {}) }, ...(payload !== undefined ? { payload } : {}) });

  // Run ids by name: the same name is the same run.
  const ids = new Map<string, string>();
  const idOf = (name: string) => ids.get(name) ?? ids.set(name, randomUUID()).get(name)!;
  const run = (name: string, hour: number, extra: object = {}) =>
    JSON.stringify({ id: idOf(name), engine: 'perplexity', prompt: 'best crm', ranAt: `${yesterday}T${String(hour).padStart(2, '0')}:00:00Z`, status: 'ok', mentions: [{ subject: 'Acme' }], ...extra });

  test('a run file uploaded in the app imports as `runs import` does: bad lines by number, repeats skipped, counted once', async () => {
    const file = [run('r1', 1), 'not json', run('r2', 2), '', run('r3', 3, { engine: 'bing' }), run('r1', 1)].join('\r\n') + '\r\n';
    const first = await as(app, owner, 'POST', `/app/api/projects/${fx.projectId}/runs`, file, 'application/x-ndjson');
    assert.equal(first.statusCode, 200, first.body);
    const result = first.json().data;
    assert.deepEqual([result.imported, result.skipped, result.rejected, result.errors.map((e: { line: number }) => e.line)], [2, 1, 2, [2, 5]]);
    const again = (await as(app, owner, 'POST', `/app/api/projects/${fx.projectId}/runs`, [run('r1', 1), run('r2', 2)].join('\n'), 'text/plain')).json().data;
    assert.deepEqual([again.imported, again.skipped, again.rejected], [0, 2, 0]);
    const series = (await app.inject({ url: `/api/v1/projects/${fx.projectId}/visibility/timeseries?from=${yesterday}&to=${yesterday}`, headers: bearer(fx.readKey) })).json().data.series;
    assert.deepEqual([series[0].sampleSize, series[0].mentionRuns], [2, 2], 'each run once');

    assert.equal((await as(app, viewer, 'POST', `/app/api/projects/${fx.projectId}/runs`, run('r9', 9), 'application/x-ndjson')).statusCode, 403);
    const other = await createFixture(database.db);
    assert.equal((await as(app, owner, 'POST', `/app/api/projects/${other.projectId}/runs`, run('r9', 9), 'application/x-ndjson')).statusCode, 404);
    const tooBig = await app.inject({
      method: 'POST',
      url: `/app/api/projects/${fx.projectId}/runs`,
      headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrf, 'content-type': 'application/x-ndjson', 'content-length': String(RUNS_UPLOAD_LIMIT + 1) },
      payload: 'x'.repeat(RUNS_UPLOAD_LIMIT + 1),
    });
    assert.equal(tooBig.statusCode, 413);
    assert.equal(tooBig.json().error.code, 'bad_request');

    // Valid runs past the limit, sent without a length (as a stream): refused whole, nothing imported.
    const before = await runCount();
    const line = run('streamed', 10) + '\n';
    const chunked = await app.inject({
      method: 'POST',
      url: `/app/api/projects/${fx.projectId}/runs`,
      headers: { cookie: owner.cookie, 'x-csrf-token': owner.csrf, 'content-type': 'application/x-ndjson' },
      payload: Readable.from((function* () {
        for (let sent = 0; sent <= RUNS_UPLOAD_LIMIT; sent += line.length * 1000) yield line.repeat(1000);
      })()),
    });
    assert.equal(chunked.statusCode, 413);
    assert.equal(await runCount(), before, 'nothing imported');
  });

  test('who may upload is settled before the body is read', async () => {
    // Headers that announce a body larger than the limit: a refusal that waited for it would be a 413.
    const announce = (headers: Record<string, string>, id = fx.projectId) =>
      app.inject({ method: 'POST', url: `/app/api/projects/${id}/runs`, headers: { 'content-type': 'application/x-ndjson', 'content-length': String(RUNS_UPLOAD_LIMIT * 2), ...headers }, payload: 'x' });
    assert.equal((await announce({})).statusCode, 401);
    assert.equal((await announce({ cookie: viewer.cookie, 'x-csrf-token': viewer.csrf })).statusCode, 403);
    assert.equal((await announce({ cookie: owner.cookie, 'x-csrf-token': owner.csrf }, randomUUID())).statusCode, 404);
    assert.equal((await announce({ cookie: owner.cookie, 'x-csrf-token': owner.csrf }, 'nope')).statusCode, 400);
  });

  test('sample now queues a cycle as `sample` does; an instance without sampling refuses', async () => {
    const prompt = await as(app, owner, 'POST', `/app/api/projects/${fx.projectId}/prompts`, { text: 'crm for dentists', engines: ['perplexity', 'claude'], samples: 2 });
    assert.equal(prompt.statusCode, 200, prompt.body);
    const queued = await as(app, owner, 'POST', `/app/api/projects/${fx.projectId}/sample`, { promptId: prompt.json().data.id });
    assert.equal(queued.statusCode, 200, queued.body);
    assert.deepEqual(queued.json().data, { checks: 4, ok: 0, failed: 0, noAnswer: 0, skipped: 4, creditsCharged: 0 }, 'no engine has a key here: skipped, never charged');
    assert.equal((await as(app, owner, 'POST', `/app/api/projects/${fx.projectId}/sample`, {})).json().data.checks, 4, 'every prompt of the project');
    assert.equal((await as(app, viewer, 'POST', `/app/api/projects/${fx.projectId}/sample`, {})).statusCode, 403);
    const refused = await as(bare, owner, 'POST', `/app/api/projects/${fx.projectId}/sample`, {});
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().error.message, /no sampling configuration/);
    const providers = (await as(app, viewer, 'GET', '/app/api/providers')).json().data.providers;
    assert.equal(providers.length, 7);
    assert.deepEqual(providers[0], { engine: 'chatgpt', provider: 'openai', configured: false, baseUrl: 'https://api.openai.com/v1', model: 'gpt-5-mini' });
  });

  test("check cited pages now: the project's due URLs get their statuses, as `verify --wait` does", async () => {
    const cited = (path: string) => ({ url: `http://acme.com:${port}${path}` });
    const lines = [run('v1', 5, { citations: [cited('/pricing'), cited('/ai-assistant-2027')] })].join('\n');
    assert.equal((await as(app, owner, 'POST', `/app/api/projects/${fx.projectId}/runs`, lines, 'application/x-ndjson')).json().data.imported, 1);
    const checked = await as(app, owner, 'POST', `/app/api/projects/${fx.projectId}/verify`);
    assert.equal(checked.statusCode, 200, checked.body);
    assert.deepEqual(checked.json().data, { checked: 2, verified: 1, stale: 0, broken: 0, hallucinated: 1, unchecked: 0, complete: true });
    assert.equal((await as(app, owner, 'POST', `/app/api/projects/${fx.projectId}/verify`)).json().data.checked, 0, 'nothing is due any more');
    assert.equal((await as(app, viewer, 'POST', `/app/api/projects/${fx.projectId}/verify`)).statusCode, 403);
    assert.equal((await as(bare, owner, 'POST', `/app/api/projects/${fx.projectId}/verify`)).statusCode, 400);
  });

  test('an owner seeds the demo project into the workspace: its keys are shown this once and work', async () => {
    const seeded = await as(app, owner, 'POST', '/app/api/demo');
    assert.equal(seeded.statusCode, 200, seeded.body);
    const demo = seeded.json().data;
    assert.equal(demo.workspaceId, fx.workspaceId);
    const ranking = await app.inject({ url: `/api/v1/projects/${demo.projectId}/visibility/ranking`, headers: bearer(demo.keys.read) });
    assert.equal(ranking.statusCode, 200);
    assert.equal((await as(app, viewer, 'POST', '/app/api/demo')).statusCode, 403);
  });
});
