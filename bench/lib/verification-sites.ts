/**
 * The cited web sites of bench/verification.ts, as their own process (so their CPU is not counted as
 * the service's): one HTTP server on 127.0.0.1 that answers for every host `site-<i>.test` the bench
 * maps to it (SIGHTLINE_RESOLVE style), each response after `delayMs` (robots.txt after
 * `robotsDelayMs`).
 *
 *   node bench/lib/verification-sites.ts '{"delayMs":200,"robotsDelayMs":200}'
 *
 * It prints one JSON line, `{"port":N,"pid":N}`, then runs until SIGTERM. Every host serves the same
 * shapes of path:
 * - `/robots.txt`: 200, `User-agent: *` / `Disallow: /private` (nothing the bench cites is disallowed);
 * - `/page-<j>` and `/moved-<j>`: 200 HTML, about 300 words of text of their own (seeded by the path);
 * - `/missing-<j>`: 404 HTML ("Page not found");
 * - `/old-<j>`: 301 to `/moved-<j>` (a permanent redirect to another page that answers);
 * - anything else (the checker's soft-404 probe `/sightline-probe-<hex>`): 404, except on the
 *   "catch-all" hosts (`site-<i>.test` with i % 10 == 9), which answer 200 with one template page,
 *   as sites that never say 404 do: the checker then compares each of their pages with it.
 * A HEAD gets the GET's status and headers, no body. `Range` is ignored (200, the whole page).
 *
 * Two paths of its own, answered at once on any host: `GET /__stats` (the requests since the last
 * reset, by kind and status, and the requests in flight: now, at most, on average, and at most on one
 * host) and `GET /__reset` (counts back to zero; answers the stats before the reset).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SitesSpec {
  /** Every response but robots.txt (and the bench's own paths) is sent this long after the request. */
  delayMs: number;
  /** robots.txt is answered after this long. */
  robotsDelayMs: number;
}

export interface SitesStats {
  /** Requests answered since the last reset (the bench's own /__ paths not counted). */
  answered: number;
  received: number;
  /** robots.txt, probe (a path the sites do not know: the checker's soft-404 probe), head, get. */
  byKind: Record<string, number>;
  byStatus: Record<string, number>;
  /** Hosts that were asked anything. */
  hosts: number;
  /** Requests not for `site-<i>.test`. */
  unexpected: number;
  inFlight: number;
  maxInFlight: number;
  /** Requests in flight on average since the reset (the time integral over the time). */
  meanInFlight: number;
  /** The most requests in flight at once for one host (the checker allows 2 page requests per host). */
  maxInFlightPerHost: number;
  sinceResetMs: number;
  bytesSent: number;
}

const spec: SitesSpec = { delayMs: 200, robotsDelayMs: 200, ...(JSON.parse(process.argv[2] ?? '{}') as Partial<SitesSpec>) };

let received = 0;
let answered = 0;
let unexpected = 0;
let bytesSent = 0;
let byKind: Record<string, number> = {};
let byStatus: Record<string, number> = {};
let hostsSeen = new Set<string>();
let inFlight = 0;
let maxInFlight = 0;
let maxPerHost = 0;
const perHost = new Map<string, number>();
let resetAt = performance.now();
let lastChange = resetAt;
let integral = 0;

function moveInFlight(host: string, delta: number): void {
  const now = performance.now();
  integral += inFlight * (now - lastChange);
  lastChange = now;
  inFlight += delta;
  maxInFlight = Math.max(maxInFlight, inFlight);
  if (host === '') return;
  const n = (perHost.get(host) ?? 0) + delta;
  if (n === 0) perHost.delete(host);
  else perHost.set(host, n);
  maxPerHost = Math.max(maxPerHost, n);
}

function stats(): SitesStats {
  moveInFlight('', 0);
  const since = performance.now() - resetAt;
  return {
    answered,
    received,
    byKind: { ...byKind },
    byStatus: { ...byStatus },
    hosts: hostsSeen.size,
    unexpected,
    inFlight,
    maxInFlight,
    meanInFlight: Math.round((integral / Math.max(since, 1)) * 100) / 100,
    maxInFlightPerHost: maxPerHost,
    sinceResetMs: Math.round(since),
    bytesSent,
  };
}

function reset(): void {
  moveInFlight('', 0);
  received = 0;
  answered = 0;
  unexpected = 0;
  bytesSent = 0;
  byKind = {};
  byStatus = {};
  hostsSeen = new Set();
  maxInFlight = inFlight;
  maxPerHost = Math.max(0, ...perHost.values());
  resetAt = performance.now();
  lastChange = resetAt;
  integral = 0;
}

// ---------------------------------------------------------------------------------------------
// Pages

/** A small deterministic generator (mulberry32) seeded by a string. */
function randomOf(text: string): () => number {
  let a = 2166136261;
  for (let i = 0; i < text.length; i++) a = Math.imul(a ^ text.charCodeAt(i), 16777619);
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pra', 'sto', 'gle', 'dan', 'mor', 'quin', 'bel', 'tor', 'fen', 'ash', 'wil'];

/** About `words` words of text of its own for a path: shingles of two pages never coincide. */
function prose(seed: string, words: number): string {
  const random = randomOf(seed);
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const n = 1 + Math.floor(random() * 3);
    let w = '';
    for (let k = 0; k < n; k++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    out.push(w);
  }
  return out.join(' ');
}

const html = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><header><nav>Home Products Pricing Blog</nav></header><main><h1>${title}</h1><p>${body}</p></main><footer>Copyright</footer></body></html>`;

/** The catch-all hosts' answer for a path they do not know (their "not found" template, as a 200). */
const CATCH_ALL = html('Welcome', 'Browse our catalogue of products and services, read the latest news from our team, and contact our friendly support staff any day of the week for help with your order.');

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  kind: string;
}

function answer(host: string, path: string, method: string): Answer {
  const htmlHeaders = { 'content-type': 'text/html; charset=utf-8' };
  if (path === '/robots.txt') return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n', kind: 'robots.txt' };
  const verb = method === 'HEAD' ? 'head' : 'get';
  let m = /^\/(page|moved)-(\d+)$/.exec(path);
  if (m) return { status: 200, headers: htmlHeaders, body: html(`${m[1] === 'page' ? 'Page' : 'Moved page'} ${m[2]} of ${host}`, prose(`${host}${path}`, 300)), kind: verb };
  m = /^\/missing-(\d+)$/.exec(path);
  if (m) return { status: 404, headers: htmlHeaders, body: html('Page not found', 'The page you asked for is not here.'), kind: verb };
  m = /^\/old-(\d+)$/.exec(path);
  if (m) return { status: 301, headers: { location: `/moved-${m[1]}`, ...htmlHeaders }, body: '', kind: verb };
  const catchAll = Number(/^site-(\d+)\.test$/.exec(host)?.[1] ?? 0) % 10 === 9;
  if (catchAll) return { status: 200, headers: htmlHeaders, body: CATCH_ALL, kind: 'probe' };
  return { status: 404, headers: htmlHeaders, body: html('Page not found', 'The page you asked for is not here.'), kind: 'probe' };
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (path === '/__stats' || path === '/__reset') {
    const before = stats();
    if (path === '/__reset') reset();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(before));
    return;
  }
  const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
  received++;
  if (!/^site-\d+\.test$/.test(host)) {
    unexpected++;
    res.writeHead(400).end(`the bench's sites do not serve ${host}`);
    return;
  }
  hostsSeen.add(host);
  moveInFlight(host, 1);
  const a = answer(host, path, req.method ?? 'GET');
  try {
    await new Promise((resolve) => setTimeout(resolve, a.kind === 'robots.txt' ? spec.robotsDelayMs : spec.delayMs));
  } finally {
    moveInFlight(host, -1);
  }
  answered++;
  byKind[a.kind] = (byKind[a.kind] ?? 0) + 1;
  byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
  const body = Buffer.from(a.body);
  if (req.method !== 'HEAD') bytesSent += body.length;
  res.writeHead(a.status, { ...a.headers, 'content-length': String(body.length) });
  res.end(req.method === 'HEAD' ? undefined : body);
}

if (import.meta.main) {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, pid: process.pid })}\n`);
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
