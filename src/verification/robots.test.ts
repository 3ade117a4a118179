import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { createOutbound, type Outbound } from '../outbound/outbound.ts';
import { parseResolveMap } from '../outbound/resolve-map.ts';
import { serviceUserAgent } from '../outbound/user-agent.ts';
import { createRobotsCache, type RobotsCacheOptions } from './robots.ts';

const USER_AGENT = serviceUserAgent('http://sightline.test');
const cleanups: (() => Promise<void>)[] = [];
after(() => Promise.all(cleanups.map((c) => c())));

/** A local server answering robots.txt as told; `hosts` are mapped to it (each its own origin). `fetches` lists `host path` as asked. */
async function robotsServer(answer: (req: IncomingMessage, res: ServerResponse) => void, hosts = ['site.test']) {
  const fetches: string[] = [];
  const userAgents: string[] = [];
  const server = createServer((req, res) => {
    fetches.push(`${req.headers.host?.split(':')[0]} ${req.url}`);
    userAgents.push(req.headers['user-agent'] ?? '');
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const outbound = createOutbound({ userAgent: USER_AGENT, resolve: parseResolveMap(hosts.map((h) => `${h}:${port}:127.0.0.1`).join(',')) });
  cleanups.push(async () => {
    await outbound.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = (path: string, host = hosts[0]) => `http://${host}:${port}${path}`;
  const cache = (options: Partial<RobotsCacheOptions> = {}) => createRobotsCache({ outbound, ...options });
  return { fetches, userAgents, url, cache, port };
}

const text = (body: string, status = 200) => (_req: IncomingMessage, res: ServerResponse) => res.writeHead(status, { 'content-type': 'text/plain' }).end(body);

describe('robots.txt decisions', () => {
  test('the SightlineBot group is the one obeyed, not `*`; asked with the service user agent', async () => {
    const s = await robotsServer(text('User-agent: *\nDisallow: /\n\nUser-agent: SightlineBot\nAllow: /\nDisallow: /drafts/\n'));
    const robots = s.cache();
    assert.deepEqual(await robots.decide(s.url('/articles/1')), { kind: 'allowed' });
    assert.deepEqual(await robots.decide(s.url('/drafts/1?x=1#frag')), { kind: 'disallowed' });
    assert.deepEqual(s.fetches, ['site.test /robots.txt']);
    assert.match(s.userAgents[0]!, /^SightlineBot\/\d/);
  });
  test('without a SightlineBot group, `*` applies; wildcards and $ work', async () => {
    const s = await robotsServer(text('User-agent: OtherBot\nDisallow: /\n\nUser-agent: *\nDisallow: /*.pdf$\nDisallow: /private\n'));
    const robots = s.cache();
    assert.deepEqual(await robots.decide(s.url('/a/report.pdf')), { kind: 'disallowed' });
    assert.deepEqual(await robots.decide(s.url('/a/report.pdf.html')), { kind: 'allowed' });
    assert.deepEqual(await robots.decide(s.url('/private/x')), { kind: 'disallowed' });
    assert.deepEqual(await robots.decide(s.url('/public')), { kind: 'allowed' });
  });
  test('4xx (404, 403) allows all; 5xx and 429 are unavailable (complete disallow)', async () => {
    for (const [status, decision] of [
      [404, { kind: 'allowed' }],
      [403, { kind: 'allowed' }],
      [500, { kind: 'unavailable', status: 500 }],
      [503, { kind: 'unavailable', status: 503 }],
      [429, { kind: 'unavailable', status: 429 }],
    ] as const) {
      const s = await robotsServer(text('User-agent: *\nDisallow: /\n', status));
      assert.deepEqual(await s.cache().decide(s.url('/page')), decision, String(status));
    }
  });
  test('redirects are followed (up to 5); more than 5 is taken as no robots.txt (allow all)', async () => {
    const s = await robotsServer((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(301, { location: '/real-robots.txt' }).end();
      if (req.url === '/real-robots.txt') return text('User-agent: *\nDisallow: /x\n')(req, res);
      res.writeHead(302, { location: req.url }).end();
    });
    assert.deepEqual(await s.cache().decide(s.url('/x')), { kind: 'disallowed' });
    const loop = await robotsServer((_req, res) => res.writeHead(302, { location: '/robots.txt' }).end());
    assert.deepEqual(await loop.cache().decide(loop.url('/x')), { kind: 'allowed' });
  });
  test('no answer: unreachable with the failure (refused, timeout, NXDOMAIN)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outbound = createOutbound({ userAgent: USER_AGENT, resolve: parseResolveMap(`gone.test:${port}:127.0.0.1`) });
    assert.deepEqual(await createRobotsCache({ outbound }).decide(`http://gone.test:${port}/`), { kind: 'unreachable', failure: 'refused' });

    const hang = await robotsServer(() => undefined);
    const started = Date.now();
    assert.deepEqual(await hang.cache({ timeoutMs: 200 }).decide(hang.url('/')), { kind: 'unreachable', failure: 'timeout' });
    assert.ok(Date.now() - started < 1_500);

    const nx: Outbound = createOutbound({ userAgent: USER_AGENT, lookup: async () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })) });
    assert.deepEqual(await createRobotsCache({ outbound: nx }).decide('https://nowhere.test/a'), { kind: 'unreachable', failure: 'dns_nxdomain' });
    await Promise.all([outbound.close(), nx.close()]);
  });
});

describe('robots.txt cache', () => {
  test('one fetch per origin for 24 h, shared by concurrent decisions; then fetched again', async () => {
    let clock = 0;
    const s = await robotsServer(text('User-agent: *\nDisallow: /no\n'));
    const robots = s.cache({ now: () => clock });
    const decisions = await Promise.all([robots.decide(s.url('/a')), robots.decide(s.url('/no')), robots.decide(s.url('/b'))]);
    assert.deepEqual(decisions.map((d) => d.kind), ['allowed', 'disallowed', 'allowed']);
    assert.equal(s.fetches.length, 1);
    clock = 24 * 3_600_000 - 1;
    await robots.decide(s.url('/a'));
    assert.equal(s.fetches.length, 1);
    clock = 24 * 3_600_000 + 1;
    await robots.decide(s.url('/a'));
    assert.equal(s.fetches.length, 2);
  });
  test('a 5xx is kept only for the failure TTL (1 h by default)', async () => {
    let clock = 0;
    const s = await robotsServer(text('', 503));
    const robots = s.cache({ now: () => clock });
    await robots.decide(s.url('/a'));
    clock = 3_600_000 - 1;
    await robots.decide(s.url('/a'));
    assert.equal(s.fetches.length, 1);
    clock = 3_600_000 + 1;
    await robots.decide(s.url('/a'));
    assert.equal(s.fetches.length, 2);
  });
  test('bounded: the least recently used origin is dropped first', async () => {
    const s = await robotsServer(text('User-agent: *\nAllow: /\n'), ['a.test', 'b.test', 'c.test']);
    const robots = s.cache({ maxOrigins: 2 });
    for (const host of ['a.test', 'b.test', 'a.test', 'c.test', 'a.test', 'b.test']) await robots.decide(s.url('/', host));
    assert.deepEqual(s.fetches, ['a.test /robots.txt', 'b.test /robots.txt', 'c.test /robots.txt', 'b.test /robots.txt']);
  });
});
