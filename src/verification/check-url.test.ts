import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { createOutbound, type Outbound, type OutboundOptions } from '../outbound/outbound.ts';
import { parseResolveMap } from '../outbound/resolve-map.ts';
import { serviceUserAgent } from '../outbound/user-agent.ts';
import { checkUrl, createHostLimiter, type CheckerOptions } from './check-url.ts';
import { createRobotsCache } from './robots.ts';
import { createProbeCache } from './soft-404.ts';

const USER_AGENT = serviceUserAgent('http://sightline.test');
const cleanups: (() => Promise<void>)[] = [];
after(() => Promise.all(cleanups.map((c) => c())));

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function checker(outbound: Outbound, timeoutMs = 2_000): CheckerOptions {
  return { outbound, robots: createRobotsCache({ outbound, timeoutMs }), probes: createProbeCache(), limiter: createHostLimiter(2), timeoutMs };
}

/**
 * A local site, `site.test` mapped to it the SIGHTLINE_RESOLVE way. `seen` lists `METHOD path` as
 * requested.
 */
async function site(handler: Handler, outboundOptions: Partial<OutboundOptions> = {}) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const outbound = createOutbound({ userAgent: USER_AGENT, resolve: parseResolveMap(`site.test:${port}:127.0.0.1`), ...outboundOptions });
  const options = checker(outbound);
  cleanups.push(async () => {
    await outbound.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const base = `http://site.test:${port}`;
  return { seen, port, base, outbound, options, check: (path: string, extra: Partial<CheckerOptions> = {}) => checkUrl(`${base}${path}`, { ...options, ...extra }) };
}

const html = (res: ServerResponse, body: string, status = 200, title = 'Acme Widgets') =>
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`);
const words = (topic: string, n = 80) => Array.from({ length: n }, (_, i) => `${topic} fact ${i} is worth ${i * 3} points`).join('. ');

const ranges: (string | undefined)[] = [];

/** An honest site: real pages, redirects of every kind, 404 for the rest, and servers misbehaving on purpose. */
const honest: Handler = (req, res) => {
  const path = req.url ?? '/';
  const hops = /^\/hops\/(\d+)$/.exec(path);
  if (hops) return res.writeHead(302, { location: Number(hops[1]) > 1 ? `/hops/${Number(hops[1]) - 1}` : '/article' }).end();
  switch (path) {
    case '/':
      return html(res, `<h1>Acme home</h1><p>${words('home')}</p>`);
    case '/article':
      return html(res, `<h1>Widgets explained</h1><p>${words('widget')}</p>`);
    case '/report.pdf':
      return res.writeHead(200, { 'content-type': 'application/pdf' }).end(req.method === 'HEAD' ? undefined : '%PDF-1.7');
    case '/old':
      return res.writeHead(301, { location: '/older' }).end();
    case '/older':
      return res.writeHead(308, { location: '/article' }).end();
    case '/temporary':
      return res.writeHead(302, { location: '/article' }).end();
    case '/loop':
      return res.writeHead(302, { location: '/loop' }).end();
    case '/deep/retired-page':
      return res.writeHead(301, { location: '/' }).end();
    case '/deep/to-language-root':
      return res.writeHead(301, { location: '/en-us/' }).end();
    case '/deep/to-short-page':
      return res.writeHead(301, { location: '/ok' }).end();
    case '/en-us/':
    case '/ok':
      return html(res, `<h1>Acme ${path}</h1><p>${words(path)}</p>`);
    case '/ranged': {
      if (req.method === 'GET') ranges.push(req.headers.range);
      const body = `<html><head><title>Ranged</title></head><body><p>${words('ranged', 200)}</p></body></html>`;
      const end = Number(/^bytes=0-(\d+)$/.exec(req.headers.range ?? '')?.[1] ?? body.length - 1);
      if (!req.headers.range) return res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      return res.writeHead(206, { 'content-type': 'text/html', 'content-range': `bytes 0-${Math.min(end, body.length - 1)}/${body.length}` }).end(body.slice(0, end + 1));
    }
    case '/empty':
      return req.headers.range ? res.writeHead(416, { 'content-range': 'bytes */0' }).end() : res.writeHead(200, { 'content-type': 'text/html' }).end();
    case '/removed':
      return html(res, 'removed', 410);
    case '/head-405':
      return req.method === 'HEAD' ? res.writeHead(405).end() : html(res, `<p>${words('fallback')}</p>`);
    case '/head-404':
      return req.method === 'HEAD' ? res.writeHead(404).end() : html(res, `<p>${words('misreported')}</p>`);
    case '/titled-not-found':
      return html(res, '<h2>Sorry</h2><p>We could not find it.</p>', 200, 'Page not found | Acme');
    case '/401':
    case '/403':
    case '/429':
    case '/500':
    case '/503':
      return res.writeHead(Number(path.slice(1))).end();
    case '/reset':
      return req.socket.destroy();
    case '/hang':
      return;
    case '/to-private':
      return res.writeHead(302, { location: `http://127.0.0.1:${(req.socket.localPort ?? 0).toString()}/article` }).end();
    case '/to-nowhere':
      return res.writeHead(302, { location: 'http://nowhere.invalid/' }).end();
    default: // robots.txt included: 404, no rules
      html(res, '<h1>Not found</h1>', 404, 'Not found');
  }
};

describe('checkUrl against an honest site', async () => {
  const s = await site(honest);

  test('200 -> ok; robots.txt (404: allow all) first, then HEAD, GET for the body, one probe', async () => {
    assert.deepEqual(await s.check('/article'), { kind: 'ok', status: 200, finalUrl: `${s.base}/article`, permanentRedirect: false, toHome: false });
    assert.deepEqual(s.seen.slice(0, 3), ['GET /robots.txt', 'HEAD /article', 'GET /article']);
    assert.match(s.seen[3]!, /^GET \/sightline-probe-[0-9a-f]{16}$/);
  });
  test('a non-HTML 2xx (PDF) is ok on HEAD alone: no body test', async () => {
    assert.equal((await s.check('/report.pdf')).kind, 'ok');
    assert.deepEqual(s.seen.filter((r) => r.endsWith('/report.pdf')), ['HEAD /report.pdf']);
  });
  test('301 and 308 hops to a 200 page -> ok, permanentRedirect, finalUrl; a 302 is not permanent', async () => {
    assert.deepEqual(await s.check('/old'), { kind: 'ok', status: 200, finalUrl: `${s.base}/article`, permanentRedirect: true, toHome: false });
    assert.deepEqual(await s.check('/temporary'), { kind: 'ok', status: 200, finalUrl: `${s.base}/article`, permanentRedirect: false, toHome: false });
  });
  test('5 redirects are followed; 6 are a failure, as is a loop', async () => {
    assert.equal((await s.check('/hops/5')).kind, 'ok');
    assert.deepEqual(await s.check('/hops/6'), { kind: 'failed', why: 'redirect_loop' });
    assert.deepEqual(await s.check('/loop'), { kind: 'failed', why: 'redirect_loop' });
  });
  test('404 -> gone not_found (confirmed by GET); 410 -> gone gone', async () => {
    assert.deepEqual(await s.check('/missing'), { kind: 'gone', status: 404, finalUrl: `${s.base}/missing`, why: 'not_found' });
    assert.deepEqual(s.seen.filter((r) => r.endsWith(' /missing')), ['HEAD /missing', 'GET /missing']);
    assert.deepEqual(await s.check('/removed'), { kind: 'gone', status: 410, finalUrl: `${s.base}/removed`, why: 'gone' });
  });
  test('HEAD 405 then GET 200 -> ok; HEAD 404 but GET 200 (a server misreporting HEAD) -> ok', async () => {
    assert.equal((await s.check('/head-405')).kind, 'ok');
    assert.deepEqual(s.seen.filter((r) => r.endsWith(' /head-405')), ['HEAD /head-405', 'GET /head-405']);
    assert.equal((await s.check('/head-404')).kind, 'ok');
  });
  test('the GET asks for the first maxBytes only (Range) and takes 206; an empty page answering 416 is asked again whole', async () => {
    ranges.length = 0;
    assert.deepEqual(await s.check('/ranged', { maxBytes: 1_000 }), { kind: 'ok', status: 206, finalUrl: `${s.base}/ranged`, permanentRedirect: false, toHome: false });
    assert.deepEqual(ranges, ['bytes=0-999']);
    assert.equal((await s.check('/empty')).kind, 'ok');
    assert.deepEqual(s.seen.filter((r) => r.endsWith(' /empty')), ['HEAD /empty', 'GET /empty', 'GET /empty']);
  });
  test('a 200 whose title says "Page not found" -> gone soft_404', async () => {
    assert.deepEqual(await s.check('/titled-not-found'), { kind: 'gone', status: 200, finalUrl: `${s.base}/titled-not-found`, why: 'soft_404' });
  });
  test('a deep path redirected to / -> gone redirect_home; the home page itself is ok', async () => {
    assert.deepEqual(await s.check('/deep/retired-page'), { kind: 'gone', status: 200, finalUrl: `${s.base}/`, why: 'redirect_home' });
    assert.equal((await s.check('/')).kind, 'ok');
    // A language root is the home page in a language; a short path that names no language is a page.
    assert.deepEqual(await s.check('/deep/to-language-root'), { kind: 'gone', status: 200, finalUrl: `${s.base}/en-us/`, why: 'redirect_home' });
    assert.deepEqual(await s.check('/deep/to-short-page'), { kind: 'ok', status: 200, finalUrl: `${s.base}/ok`, permanentRedirect: true, toHome: false });
  });
  test('401, 403, 429 -> inconclusive with the status', async () => {
    assert.deepEqual(await s.check('/401'), { kind: 'inconclusive', why: 'auth_required', status: 401 });
    assert.deepEqual(await s.check('/403'), { kind: 'inconclusive', why: 'forbidden', status: 403 });
    assert.deepEqual(await s.check('/429'), { kind: 'inconclusive', why: 'rate_limited', status: 429 });
  });
  test('500, 503 -> failed; a connection reset -> failed', async () => {
    assert.deepEqual(await s.check('/500'), { kind: 'failed', why: 'http_500', status: 500 });
    assert.deepEqual(await s.check('/503'), { kind: 'failed', why: 'http_503', status: 503 });
    assert.deepEqual(await s.check('/reset'), { kind: 'failed', why: 'refused' });
  });
  test('a page that hangs -> failed timeout within the time cap', async () => {
    const started = Date.now();
    assert.deepEqual(await s.check('/hang', { timeoutMs: 250 }), { kind: 'failed', why: 'timeout' });
    assert.ok(Date.now() - started < 1_000, `took ${Date.now() - started} ms`);
  });
  test('a redirect to a private address is never followed: inconclusive blocked_address', async () => {
    const before = s.seen.filter((r) => r === 'HEAD /article').length;
    assert.deepEqual(await s.check('/to-private'), { kind: 'inconclusive', why: 'blocked_address' });
    assert.equal(s.seen.filter((r) => r === 'HEAD /article').length, before);
  });
  test('a redirect to a host that does not exist: the cited host exists, so failed, not no_host', async () => {
    const nx = await site(honest, { lookup: async () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })) });
    assert.deepEqual(await nx.check('/to-nowhere'), { kind: 'failed', why: 'redirect_to_nxdomain' });
  });
  test('not an http(s) URL, or one with credentials -> inconclusive bad_url, nothing fetched', async () => {
    const count = s.seen.length;
    assert.deepEqual(await checkUrl('ftp://site.test/file', s.options), { kind: 'inconclusive', why: 'bad_url' });
    assert.deepEqual(await checkUrl('not a url', s.options), { kind: 'inconclusive', why: 'bad_url' });
    assert.deepEqual(await checkUrl(`http://user:pw@site.test:${s.port}/article`, s.options), { kind: 'inconclusive', why: 'bad_url' });
    assert.equal(s.seen.length, count);
  });
});

describe('soft 404s on a site that answers 200 for every path', async () => {
  const template = `<nav>Home Products Pricing Blog Docs About Contact</nav><p>Sorry, we looked everywhere but this address leads nowhere. Try the search box.</p><footer>Acme Widgets Inc all rights reserved</footer>`;
  const s = await site((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    if (req.url === '/real-article') return html(res, `${template}<article>${words('catalogue')}</article>`);
    html(res, template);
  });
  test('a path it does not have -> gone soft_404 (like its random-path probe)', async () => {
    assert.deepEqual(await s.check('/made-up-by-an-engine'), { kind: 'gone', status: 200, finalUrl: `${s.base}/made-up-by-an-engine`, why: 'soft_404' });
  });
  test('a real page of it -> ok; the probe was fetched once for the site', async () => {
    assert.equal((await s.check('/real-article')).kind, 'ok');
    assert.equal(s.seen.filter((r) => r.includes('/sightline-probe-')).length, 1);
  });
});

describe('robots.txt', () => {
  test('a path disallowed for SightlineBot -> inconclusive robots, and the page is never requested', async () => {
    const s = await site((req, res) => {
      if (req.url === '/robots.txt') return res.end('User-agent: *\nAllow: /\n\nUser-agent: SightlineBot\nDisallow: /private/\n');
      html(res, `<p>${words(req.url ?? '')}</p>`);
    });
    assert.deepEqual(await s.check('/private/page'), { kind: 'inconclusive', why: 'robots' });
    assert.deepEqual(s.seen, ['GET /robots.txt']);
    assert.equal((await s.check('/public')).kind, 'ok');
  });
  test('robots.txt 500 -> inconclusive, the page never requested', async () => {
    const s = await site((req, res) => (req.url === '/robots.txt' ? res.writeHead(500).end() : html(res, 'page')));
    assert.deepEqual(await s.check('/page'), { kind: 'inconclusive', why: 'robots_unavailable', status: 500 });
    assert.deepEqual(s.seen, ['GET /robots.txt']);
  });
  test('a host that hangs (robots.txt included) -> failed timeout within the cap, the page never requested', async () => {
    const s = await site(() => undefined);
    const started = Date.now();
    assert.deepEqual(await checkUrl(`${s.base}/page`, checker(s.outbound, 250)), { kind: 'failed', why: 'timeout' });
    assert.ok(Date.now() - started < 1_000, `took ${Date.now() - started} ms`);
    assert.deepEqual(s.seen, ['GET /robots.txt']);
  });
});

describe('hosts that cannot be reached', () => {
  const noDns = (code: string) => createOutbound({ userAgent: USER_AGENT, lookup: async () => Promise.reject(Object.assign(new Error(code), { code })) });

  test('NXDOMAIN -> no_host; EAI_AGAIN -> inconclusive', async () => {
    const nx = noDns('ENOTFOUND');
    const again = noDns('EAI_AGAIN');
    assert.deepEqual(await checkUrl('https://hallucinated-brand.test/page', checker(nx)), { kind: 'no_host', why: 'nxdomain' });
    assert.deepEqual(await checkUrl('https://flaky.test/page', checker(again)), { kind: 'inconclusive', why: 'dns_temporary' });
    await Promise.all([nx.close(), again.close()]);
  });
  test('connection refused -> failed; TLS failure (https to a plain-HTTP port) -> failed tls', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outbound = createOutbound({ userAgent: USER_AGENT, resolve: parseResolveMap(`down.test:${port}:127.0.0.1`) });
    assert.deepEqual(await checkUrl(`http://down.test:${port}/page`, checker(outbound)), { kind: 'failed', why: 'refused' });
    await outbound.close();
    const s = await site(honest);
    assert.deepEqual(await checkUrl(`https://site.test:${s.port}/article`, s.options), { kind: 'failed', why: 'tls' });
  });
  test('private addresses are never connected to: a literal, a name resolving to 10.x, a rebinding name', async () => {
    const s = await site(honest);
    const plain = createOutbound({ userAgent: USER_AGENT });
    assert.deepEqual(await checkUrl(`http://127.0.0.1:${s.port}/article`, checker(plain)), { kind: 'inconclusive', why: 'blocked_address' });
    const intranet = createOutbound({ userAgent: USER_AGENT, lookup: async () => ['10.0.0.5'] });
    assert.deepEqual(await checkUrl(`http://intranet.test:${s.port}/article`, checker(intranet)), { kind: 'inconclusive', why: 'blocked_address' });
    // Public when a caller vets it, private when the checker connects: judged at connect time.
    let lookups = 0;
    const rebinding = createOutbound({ userAgent: USER_AGENT, lookup: async () => (lookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']) });
    await rebinding.vet(`http://rebind.test:${s.port}/article`);
    assert.deepEqual(await checkUrl(`http://rebind.test:${s.port}/article`, checker(rebinding)), { kind: 'inconclusive', why: 'blocked_address' });
    assert.ok(lookups >= 2);
    assert.deepEqual(s.seen, []);
    await Promise.all([plain.close(), intranet.close(), rebinding.close()]);
  });
});

describe('per-host limits', () => {
  test('createHostLimiter: at most N at once per host, in order; other hosts are not held up; a failing task frees its place', async () => {
    const limiter = createHostLimiter(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const task = (i: number) => async () => {
      running++;
      peak = Math.max(peak, running);
      order.push(i);
      await new Promise((r) => setTimeout(r, 10));
      running--;
      if (i === 1) throw new Error('task failed');
      return i;
    };
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map((i) => limiter.run('A.test', task(i))));
    assert.equal(peak, 2);
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
    assert.equal(results[1]!.status, 'rejected');
    assert.deepEqual(results.filter((r) => r.status === 'fulfilled').map((r) => r.value), [0, 2, 3, 4, 5]);

    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const blocking = [limiter.run('a.test', () => held), limiter.run('a.test', () => held)];
    assert.equal(await limiter.run('b.test', async () => 'other host'), 'other host');
    release();
    await Promise.all(blocking);
  });
  test('concurrent checks of one host: at most 2 requests in flight to it', async () => {
    let inFlight = 0;
    let peak = 0;
    const s = await site((req, res) => {
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, 30);
    });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => s.check(`/item/${i}`)));
    assert.deepEqual(results.map((r) => r.kind), Array(6).fill('ok'));
    assert.equal(peak, 2);
  });
});
