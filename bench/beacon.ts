/**
 * POST /api/beacon: requests/s and latency, beside a bare Fastify route measured the same way.
 *
 *   npx node bench/beacon.ts
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx node bench/beacon.ts
 *
 * Each beacon is what the snippet sends for an AI-referred page view: a text/plain JSON body
 * {projectId, url on the brand's site, an assistant referrer, a session id} with an Origin of the
 * brand's site, so it is tracked and stored (one project lookup, then a transaction adding the hit
 * to its daily rollup row in traffic_daily). The beacon is rate limited to 120 requests a minute per
 * client address, so:
 *
 * (a) in process: `app.inject` with a different `remoteAddress` for every request (no sockets), N
 *     requests in flight and also one at a time; beside a bare Fastify app's POST route that parses
 *     the same text/plain JSON, injected the same way.
 * (b) over HTTP, keep-alive, from one address (127.0.0.1), load from a separate process
 *     (lib/post-load.ts): after the first 120, every answer is the rate limiter's 429. This measures
 *     the rejection path, labelled as such, beside the bare POST route over HTTP.
 * (c) over HTTP with every request on a new connection from its own loopback address (127.x.y.z:
 *     Linux routes all of 127.0.0.0/8 to lo), so each beacon is tracked; beside the bare POST route
 *     loaded the same way (a new connection per request).
 *
 * On the embedded PostgreSQL 18 (a fresh data dir under .tmp/, stopped and deleted at the end) and,
 * when DATABASE_URL is set, a fresh database on that PostgreSQL server (dropped at the end).
 * Settings: --concurrency (16), --requests (20000), --duration-ms (5000), --warmup-ms (1000),
 * --warmup-requests (2000) for the HTTP runs; --inject-requests (5000), --inject-ms (10000),
 * --inject-warmup (500), --sequential-requests (2000); --json-out=FILE.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../src/app.ts';
import { createProject } from '../src/projects/create-project.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';
import { buildBareApp } from './lib/bare-server.ts';
import { describeLoad, loadSettings, round1, setting, table, writeJsonOut } from './lib/common.ts';
import { percentile } from './lib/latency.ts';
import { runPostLoadProcess, type PostLoadResult, type PostLoadSpec } from './lib/post-load.ts';
import { codeVersion, loadavg, openScratchEmbedded, openScratchPostgres, type ScratchDb } from './lib/scratch-db.ts';

const http = loadSettings();
const inject = {
  concurrency: http.concurrency,
  requests: Math.max(1, Math.round(setting('inject-requests', 5_000))),
  maxMs: setting('inject-ms', 10_000),
  warmup: Math.round(setting('inject-warmup', 500)),
  sequential: Math.max(1, Math.round(setting('sequential-requests', 2_000))),
};
const log = (line: string) => console.log(line);
const PATHS = ['/', '/pricing', '/features', '/docs/getting-started', '/blog/ai-search', '/compare/globex', '/customers', '/about', '/integrations', '/security'];
const REFERRERS = ['https://chatgpt.com/', 'https://www.perplexity.ai/search?q=acme', 'https://gemini.google.com/', 'https://claude.ai/', 'https://copilot.microsoft.com/'];
const TRACKED = '{"data":{"tracked":true}}';

interface Figure {
  mode: string;
  server: string;
  route: string;
  concurrency: number;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  note: string;
}
const figures: Figure[] = [];
const add = (f: Figure) => {
  figures.push(f);
  log(`  ${f.mode} | ${f.server} | ${f.route} | c=${f.concurrency}: ${f.requests} requests, ${f.rps} req/s, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, statuses ${JSON.stringify(f.statuses)} ${f.note}`);
};

/** A beacon body for request n: one of 10 pages, one of 5 assistants, a session per request. */
const beaconBody = (projectId: string, n: number) =>
  JSON.stringify({ projectId, url: `https://acme.com${PATHS[n % PATHS.length]}?ref=${n % 7}`, referrer: REFERRERS[n % REFERRERS.length], sessionId: `bench-${n}` });

// ---------------------------------------------------------------------------------------------
// In-process load through inject

interface InjectResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  /** Answers that were not what the case expects. */
  unexpected: number;
  firstUnexpected?: string;
}

async function injectLoad(app: FastifyInstance, request: (n: number) => InjectOptions, expect: (status: number, body: string) => boolean, concurrency: number, requests: number, maxMs: number, warmup: number, counter: { n: number }): Promise<InjectResult> {
  const phase = async (count: number, ms: number) => {
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    let unexpected = 0;
    let firstUnexpected: string | undefined;
    let issued = 0;
    const start = performance.now();
    const deadline = start + ms;
    const worker = async () => {
      while (issued < count && performance.now() < deadline) {
        issued++;
        const t0 = performance.now();
        const res = await app.inject(request(counter.n++));
        latencies.push(performance.now() - t0);
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (!expect(res.statusCode, res.body)) {
          unexpected++;
          firstUnexpected ??= `HTTP ${res.statusCode}: ${res.body.slice(0, 200)}`;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const elapsed = performance.now() - start;
    const sorted = Float64Array.from(latencies).sort();
    const round = (n: number) => Math.round(n * 100) / 100;
    const result: InjectResult = {
      requests: latencies.length,
      rps: Math.round(latencies.length / (elapsed / 1000)),
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
      statuses: Object.fromEntries([...statuses].map(([s, n]) => [String(s), n])),
      unexpected,
    };
    if (firstUnexpected !== undefined) result.firstUnexpected = firstUnexpected;
    return result;
  };
  if (warmup > 0) await phase(warmup, maxMs);
  return phase(requests, maxMs);
}

function bareApp(): FastifyInstance {
  const bare = buildBareApp();
  // The same work a beacon does before the database: parse a small text/plain JSON body.
  bare.post('/bare-beacon', { bodyLimit: 8_192 }, async (request) => {
    const body = JSON.parse(String(request.body)) as { projectId?: unknown };
    return { data: { tracked: typeof body.projectId === 'string' } };
  });
  return bare;
}

const beaconRequest = (projectId: string, url: string) => (n: number): InjectOptions => ({
  method: 'POST',
  url,
  headers: { 'content-type': 'text/plain', origin: 'https://acme.com' },
  payload: beaconBody(projectId, n),
  // A distinct client address per request, so the per-address limit (120/min) never applies.
  remoteAddress: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
});

const fromInject = (mode: string, server: string, route: string, concurrency: number, r: InjectResult, note = ''): Figure => ({
  mode,
  server,
  route,
  concurrency,
  requests: r.requests,
  rps: r.rps,
  p50Ms: r.p50Ms,
  p99Ms: r.p99Ms,
  statuses: r.statuses,
  note: r.unexpected ? `${note} UNEXPECTED ${r.unexpected}: ${r.firstUnexpected}` : note,
});

const fromLoad = (mode: string, server: string, route: string, r: PostLoadResult, note = ''): Figure => ({
  mode,
  server,
  route,
  concurrency: r.concurrency,
  requests: r.requests,
  rps: r.rps,
  p50Ms: r.p50Ms,
  p99Ms: r.p99Ms,
  statuses: r.statuses,
  note: r.unexpected || r.errors ? `${note} UNEXPECTED ${r.unexpected}, errors ${r.errors}: ${r.firstError}` : note,
});

// ---------------------------------------------------------------------------------------------

log(`beacon benchmark: ${codeVersion()}, Node ${process.version}, load average ${loadavg()} at start`);
log(`HTTP load: ${describeLoad(http)}; inject: ${inject.concurrency} in flight, up to ${inject.requests} requests or ${inject.maxMs / 1000} s after ${inject.warmup}, and ${inject.sequential} one at a time`);
const loadStart = loadavg();
const t0 = performance.now();
const baseSpec = { concurrency: http.concurrency, requests: http.requests, durationMs: http.durationMs, warmupMs: http.warmupMs, warmupRequests: http.warmupRequests };
const fakeProject = '11111111-1111-4111-8111-111111111111';

async function bareRuns(label: string): Promise<void> {
  log(`\nbare Fastify${label}:`);
  const bare = bareApp();
  await bare.ready();
  const okBare = (status: number) => status === 200;
  const counter = { n: 0 };
  const server = `bare Fastify${label}`;
  add(fromInject('(a) inject', server, 'GET /bare', inject.concurrency, await injectLoad(bare, () => ({ method: 'GET', url: '/bare' }), okBare, inject.concurrency, inject.requests, inject.maxMs, inject.warmup, counter)));
  add(fromInject('(a) inject', server, 'POST /bare-beacon', inject.concurrency, await injectLoad(bare, beaconRequest(fakeProject, '/bare-beacon'), okBare, inject.concurrency, inject.requests, inject.maxMs, inject.warmup, counter)));
  add(fromInject('(a) inject, one at a time', server, 'POST /bare-beacon', 1, await injectLoad(bare, beaconRequest(fakeProject, '/bare-beacon'), okBare, 1, inject.sequential, inject.maxMs, inject.warmup, counter)));
  const address = await bare.listen({ port: 0, host: '127.0.0.1' });
  const spec: PostLoadSpec = { ...baseSpec, url: `${address}/bare-beacon`, headers: { 'content-type': 'text/plain', origin: 'https://acme.com' }, body: beaconBody(fakeProject, 0) };
  add(fromLoad('(b) HTTP keep-alive, one address', server, 'POST /bare-beacon', await runPostLoadProcess(spec)));
  add(fromLoad('(c) HTTP new connection per request, one address each', server, 'POST /bare-beacon', await runPostLoadProcess({ ...spec, spreadSources: true })));
  await bare.close();
}
await bareRuns('');

interface Stored {
  server: string;
  trackedAnswers: number;
  trafficHits: number;
  trafficDailyRows: number;
}
const stored: Stored[] = [];

async function beaconRuns(scratch: ScratchDb): Promise<void> {
  const { db } = scratch.database;
  log(`\n${scratch.label} (${scratch.where}):`);
  const { id: workspaceId } = await createWorkspace(db, { name: 'Beacon bench', plan: 'growth' });
  const { id: projectId } = await createProject(db, workspaceId, { name: 'Acme', domain: 'acme.com' });
  const tracked = (status: number, body: string) => status === 200 && body === TRACKED;
  let trackedAnswers = 0;
  const counter = { n: 0 };

  // (a) in process, a fresh app (its own in-memory rate-limit store).
  {
    const app = await buildApp({ db });
    await app.ready();
    const run = async (concurrency: number, requests: number) => {
      const r = await injectLoad(app, beaconRequest(projectId, '/api/beacon'), tracked, concurrency, requests, inject.maxMs, inject.warmup, counter);
      return r;
    };
    const many = await run(inject.concurrency, inject.requests);
    add(fromInject('(a) inject', scratch.label, 'POST /api/beacon (tracked)', inject.concurrency, many));
    const one = await run(1, inject.sequential);
    add(fromInject('(a) inject, one at a time', scratch.label, 'POST /api/beacon (tracked)', 1, one));
    await app.close();
  }
  trackedAnswers = counter.n; // every injected request, warm-ups included, was checked as tracked (unexpected ones are reported)

  // (b) over HTTP from one address: after 120, the rate limiter's 429.
  {
    const app = await buildApp({ db });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const spec: PostLoadSpec = { ...baseSpec, url: `${address}/api/beacon`, headers: { 'content-type': 'text/plain', origin: 'https://acme.com' }, body: beaconBody(projectId, 0), expectStatus: 429, keepResponses: 1 };
    const r = await runPostLoadProcess(spec);
    add(fromLoad('(b) HTTP keep-alive, one address', scratch.label, 'POST /api/beacon (429: rate limited)', r, `(warm-up ${r.warmupRequests} requests, of which the first 120 were tracked; answer: ${r.responses?.[0]?.slice(0, 120) ?? '-'})`));
    trackedAnswers += 120;
    await app.close();
  }

  // (c) over HTTP, a new connection from a new loopback address for each request: all tracked.
  {
    const app = await buildApp({ db });
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const spec: PostLoadSpec = { ...baseSpec, url: `${address}/api/beacon`, headers: { 'content-type': 'text/plain', origin: 'https://acme.com' }, body: beaconBody(projectId, 1), spreadSources: true, keepResponses: 1 };
    const r = await runPostLoadProcess(spec);
    add(fromLoad('(c) HTTP new connection per request, one address each', scratch.label, 'POST /api/beacon (tracked)', r, `(answer: ${r.responses?.[0] ?? '-'})`));
    trackedAnswers += r.warmupRequests + (r.statuses['200'] ?? 0);
    await app.close();
  }

  // Each tracked beacon adds one hit to its traffic_daily row (hits are stored only as those sums).
  const daily = await db
    .selectFrom('traffic_daily')
    .select((eb) => [eb.fn.countAll<number>().as('rows'), eb.fn.coalesce(eb.fn.sum<number>('hits'), eb.lit(0)).as('hits')])
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  const s = { server: scratch.label, trackedAnswers, trafficHits: Number(daily.hits), trafficDailyRows: Number(daily.rows) };
  stored.push(s);
  log(`  stored: ${s.trafficHits} hits summed over traffic_daily (${s.trackedAnswers} tracked answers expected, counting warm-ups), in ${s.trafficDailyRows} traffic_daily rows`);
}

for (const open of [() => openScratchEmbedded('beacon'), () => openScratchPostgres('beacon')]) {
  const scratch = await open();
  if (!scratch) {
    log('\nPostgreSQL: skipped (DATABASE_URL is not set)');
    continue;
  }
  try {
    await beaconRuns(scratch);
  } finally {
    await scratch.close();
  }
}

// The baseline again, to see how much the machine's load moved during the run.
await bareRuns(' (again, at the end)');

const loadEnd = loadavg();
log('\nSummary:\n');
log(table(['mode', 'server', 'route', 'in flight', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'statuses'], figures.map((f) => [f.mode, f.server, f.route, f.concurrency, f.requests, f.rps, f.p50Ms, f.p99Ms, Object.entries(f.statuses).map(([s, n]) => `${s}:${n}`).join(' ')])));
log(`\nload average: ${loadStart} at start, ${loadEnd} at the end; whole run ${round1((performance.now() - t0) / 1000)} s`);
writeJsonOut({ http, inject, code: codeVersion(), node: process.version, loadStart, loadEnd, figures, stored });
