import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createOutbound, type Outbound } from '../src/outbound/outbound.ts';
import { parseResolveMap } from '../src/outbound/resolve-map.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { createChecker } from '../src/verification/checker.ts';
import { dnsHealth } from '../src/verification/dns-health.ts';
import type { VerifierDeps } from '../src/verification/verifier.ts';
import { verifyNow, verifyRounds } from '../src/verification/verify-now.ts';
import { bearer, createFixture, useTestApp } from './helpers.ts';

const NOW = new Date('2026-11-22T12:00:00Z');

/** acme.com (the brand) and news.test, both served locally: a page per path as listed; anything else 404. */
function site(): Server {
  return createServer((req, res) => {
    const path = req.url ?? '/';
    const page = (title: string, words: string) => `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${words}</p></body></html>`;
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: SightlineBot\nDisallow: /private\n');
      return;
    }
    if (path === '/pricing') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('Acme pricing', 'Plans for teams of every size, from starter to enterprise, billed monthly or yearly with discounts for nonprofits and schools.'));
    if (path === '/' ) return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('Acme', 'The CRM for small teams that want to sell more and spend less time on data entry and reports every week.'));
    if (path === '/old-launch') return void res.writeHead(301, { location: '/' }).end();
    if (path === '/flaky') return void res.writeHead(503).end();
    if (path.startsWith('/private')) return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('Private', 'never fetched'));
    res.writeHead(404, { 'content-type': 'text/html' }).end(page('Not found', 'no such page here at all'));
  });
}

describe('citation verification: the checker, the rules, the rollups and citation health', () => {
  const ctx = useTestApp({ now: () => NOW });
  let server: Server;
  let outbound: Outbound;
  let deps: VerifierDeps;
  let seenPaths: string[] = [];
  // The checker's clock: real time (a URL is due from when it was first cited), moved on for rechecks.
  let aheadMs = 0;
  const clock = () => new Date(Date.now() + aheadMs);

  before(async () => {
    server = site();
    server.on('request', (req) => seenPaths.push(`${req.headers.host?.split(':')[0]}${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    // The sites as an operator maps them (SIGHTLINE_RESOLVE), on port 80 of the cited URLs: the
    // outbound client connects to the mapped address and port... so the cited URLs carry the port.
    outbound = createOutbound({
      userAgent: 'SightlineBot/test (+http://localhost/bots)',
      resolve: parseResolveMap(`acme.com:${port}:127.0.0.1,news.test:${port}:127.0.0.1`),
      lookup: async (host) => {
        if (host === 'example.com') return ['93.184.216.34'];
        throw Object.assign(new Error(`${host} not found`), { code: 'ENOTFOUND' });
      },
    });
    deps = { db: ctx.db, check: createChecker(outbound), dnsWorks: dnsHealth(outbound), now: clock, recheckDays: 7, concurrency: 4, onError: (e) => assert.fail(String(e)) };
    (globalThis as { port?: number }).port = port;
  });
  after(async () => {
    await outbound.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('each page gets the status the rules give; imported statuses are left alone; a flip moves the brand\'s citations', async () => {
    const port = (globalThis as { port?: number }).port!;
    const fx = await createFixture(ctx.db);
    const url = (host: string, path: string) => `http://${host}:${port}${path}`;
    const cite = (u: string, status?: string) => ({ url: u, ...(status ? { status } : {}) });
    const runs = [0, 1, 2, 3, 4].map((i) =>
      JSON.stringify({
        engine: i % 2 ? 'chatgpt' : 'perplexity',
        prompt: 'best crm',
        ranAt: `2026-11-2${i % 2}T0${i}:00:00Z`,
        status: 'ok',
        mentions: [{ subject: 'Acme' }],
        citations: [
          cite(url('acme.com', '/pricing')),
          cite(url('acme.com', '/ai-assistant-2027')),
          cite(url('acme.com', '/old-launch'), 'verified'),
          cite(url('news.test', '/flaky')),
          cite(url('news.test', '/private/memo')),
          cite(`http://nowhere.test:${port}/page`),
        ],
      }),
    );
    await importRuns(ctx.db, fx.projectId, runs);
    const ranking = async () => (await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/visibility/ranking?from=2026-11-15&to=2026-11-22`, headers: bearer(fx.readKey) })).json().data.rows.find((r: { name: string }) => r.name === 'Acme');
    assert.equal((await ranking()).citations, 15, 'before: three brand pages in each of five runs');

    seenPaths = [];
    const first = await verifyNow(deps, fx.projectId, true);
    assert.deepEqual(first, { checked: 5, verified: 1, stale: 0, broken: 0, hallucinated: 2, unchecked: 2 });
    assert.ok(!seenPaths.some((p) => p.includes('/private/memo')), 'robots.txt disallows it: never fetched');
    const statuses = Object.fromEntries((await ctx.db.selectFrom('cited_urls').select(['url', 'status', 'status_source']).where('project_id', '=', fx.projectId).execute()).map((r) => [new URL(r.url).pathname, `${r.status}/${r.status_source}`]));
    assert.deepEqual(statuses, {
      '/pricing': 'verified/check',
      '/ai-assistant-2027': 'hallucinated/check',
      '/old-launch': 'verified/import',
      '/flaky': 'unchecked/import',
      '/private/memo': 'unchecked/import',
      '/page': 'hallucinated/check',
    });
    assert.equal((await ranking()).citations, 10, "the hallucinated brand page's citations left the brand's count");

    // Nothing is due again until its time: a second run checks nothing.
    assert.equal((await verifyNow(deps, fx.projectId, true)).checked, 0);
    // The flaky page: failures 12 hours apart; the third, a day after the first, makes it broken.
    for (const hours of [12, 24]) {
      aheadMs = hours * 3_600_000 + 60_000;
      const round = await verifyNow(deps, fx.projectId, true);
      assert.ok(round.checked >= 1);
    }
    const flaky = await ctx.db.selectFrom('cited_urls').select(['status', 'check_failures']).where('project_id', '=', fx.projectId).where('url', 'like', '%/flaky').executeTakeFirstOrThrow();
    assert.deepEqual(flaky, { status: 'broken', check_failures: 3 });

    // Citation health over the range: per engine and overall, with the brand's missing pages.
    aheadMs = 0;
    const health = (await ctx.app.inject({ url: `/api/v1/projects/${fx.projectId}/citation-health?from=2026-11-15&to=2026-11-22`, headers: bearer(fx.readKey) })).json().data;
    assert.equal(health.overall.urls, 6);
    assert.deepEqual(health.overall.byStatus, { verified: 2, stale: 0, broken: 1, hallucinated: 2, unchecked: 1 });
    assert.equal(health.overall.checked, 5);
    assert.equal(health.overall.hallucinated.share, 40);
    assert.ok(health.overall.hallucinated.ciLow < 40 && health.overall.hallucinated.ciHigh > 40);
    assert.deepEqual(health.engines.map((e: { engine: string; urls: number }) => `${e.engine}:${e.urls}`), ['chatgpt:6', 'perplexity:6']);
    assert.deepEqual(
      health.missingOwnPages.map((p: { url: string; status: string; citations: number; engines: string[] }) => [new URL(p.url).pathname, p.status, p.citations, p.engines]),
      [['/ai-assistant-2027', 'hallucinated', 5, ['chatgpt', 'perplexity']]],
    );
  });

  test('a resolver that resolves nothing cannot call a host hallucinated', async () => {
    const fx = await createFixture(ctx.db);
    const offline = createOutbound({ userAgent: 'x', lookup: async (host) => Promise.reject(Object.assign(new Error(`${host} not found`), { code: 'ENOTFOUND' })) });
    try {
      await importRuns(ctx.db, fx.projectId, [JSON.stringify({ engine: 'chatgpt', prompt: 'p', ranAt: '2026-11-20T10:00:00Z', status: 'ok', citations: [{ url: 'https://real-but-offline.example/page' }] })]);
      const result = await verifyNow({ ...deps, check: createChecker(offline), dnsWorks: dnsHealth(offline) }, fx.projectId, true);
      assert.deepEqual(result, { checked: 1, verified: 0, stale: 0, broken: 0, hallucinated: 0, unchecked: 1 });
    } finally {
      await offline.close();
    }
  });

  test('checking against a deadline: no round starts after it, a round is as many as are checked at once, and a short round is the end', async () => {
    const port = (globalThis as { port?: number }).port!;
    const fx = await createFixture(ctx.db);
    const pages = Array.from({ length: 10 }, (_, i) => ({ url: `http://acme.com:${port}/page-${i}` }));
    await importRuns(ctx.db, fx.projectId, [JSON.stringify({ engine: 'chatgpt', prompt: 'p', ranAt: '2026-11-20T10:00:00Z', status: 'ok', citations: pages })]);
    let checks = 0;
    const slow: VerifierDeps = { ...deps, concurrency: 2, check: async (url) => { checks++; await new Promise((r) => setTimeout(r, 30)); return deps.check(url); } };
    const none = await verifyRounds(slow, fx.projectId, Date.now() - 1);
    assert.deepEqual(none, { result: { checked: 0, verified: 0, stale: 0, broken: 0, hallucinated: 0, unchecked: 0 }, complete: false }, 'past its deadline: nothing started');
    const part = await verifyRounds(slow, fx.projectId, Date.now() + 20);
    assert.equal(part.complete, false);
    assert.equal(checks, 2, 'one round of two (the concurrency) started before the deadline, none after');
    assert.equal(part.result.checked, 2);
    const rest = await verifyRounds(slow, fx.projectId, Date.now() + 60_000);
    assert.equal(rest.complete, true, 'the last round came back short: nothing more is due');
    assert.equal(rest.result.checked, 8);
    assert.equal(rest.result.hallucinated, 8);
    assert.equal(checks, 10, 'each page checked once');
  });
});
