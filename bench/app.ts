/**
 * The web app's first paint and bytes, for the issue "The app", deliverable 6: "time to first
 * meaningful paint of the overview on the demo data (Chromium, local), and the bytes the page
 * loads; target under 1 s and under 150 KB compressed". Beside it, in the same run, a baseline: the
 * same overview already drawn, saved as a static page (scripts removed) and served by a bare
 * Fastify with the service's own stylesheet bytes, and the service's sign-in page. See
 * bench/README.md ("The app: first paint and bytes").
 *
 *   node_modules/node/bin/node bench/app.ts                  # 10 runs each, 28 and 90 days
 *   node_modules/node/bin/node bench/app.ts --runs=30 --json-out=.tmp/app.json
 *
 * 1. The service as `npm start` runs it: `node src/server.ts` on the embedded PostgreSQL in a fresh
 *    `SIGHTLINE_DATA_DIR` (`.tmp/bench-app-<pid>/data`, deleted at the end), which seeds the demo
 *    and prints its sign-in. SIGHTLINE_SAMPLING=0 and SIGHTLINE_VERIFY=0: no background work and no
 *    request leaves the machine. A viewer per measured group is added to the demo workspace (the
 *    API's per-session rate limit is 600 requests a minute; an overview load makes 9), and each
 *    signs in with POST /app/session; the browser gets the session cookie.
 * 2. Debian's Chromium (/usr/bin/chromium, headless, through playwright-core), viewport 1280x900, no
 *    CPU or network throttling. Every page gets an init script: a MutationObserver that notes when
 *    the chart is in the document (`#chart svg g.events`, the last group drawChart adds, and a row
 *    of the ranking: render() draws both in one task) and, before they are first painted, marks a
 *    text of each for element timing (`elementtiming` on the first tick label and on the first
 *    ranking row's name). "First meaningful paint" here is the later of the two element timing
 *    render times: the frame showing the chart's points and the ranking was presented, the clock
 *    FCP uses. Beside it: the chart entering the DOM, the frame after it (requestAnimationFrame,
 *    then a task: produced, not yet presented), FCP and LCP (paint timing), DOMContentLoaded and the
 *    load event (navigation timing), and the last response of the page (resource timing), all in
 *    ms from navigation start. The page itself sets no mark (src/web/public/overview.js).
 * 3. Bytes from the DevTools protocol (Network domain of the page): per request, the bytes on the
 *    wire (`loadingFinished.encodedDataLength`: headers and body as received, compressed when the
 *    response was), the body as received (`dataReceived.encodedDataLength`) and decoded
 *    (`dataLength`), split by resource type: HTML (document), CSS, JS, API JSON (fetch), other.
 *    In the first cold load of each range the API bodies are read back (`Network.getResponseBody`)
 *    and gzipped (level 6) and brotli'd (quality 4), what an on-the-fly compressor would do, to show
 *    what compressing the API responses would change; src/ is not changed.
 * 4. Order: first the "first load" of each range (server just started: its response cache is empty),
 *    whose DOM becomes the static snapshot; then per page a browser context kept open, primed by
 *    one load; then `--runs` runs, in each every page loaded cold then warm, so both see the same
 *    machine. Cold: a new browser context (empty HTTP cache, new connections; the browser process
 *    and the service warm). Warm: a new page in the page's kept context (assets from the HTTP
 *    cache, API responses revalidated with their ETags, the HTML fetched again: it is `no-store`).
 *
 * Settings (argument, else BENCH_* variable): --runs (10), --ranges (28,90: any of 7, 28, 90),
 * --viewport-width (1280), --viewport-height (900), --chart-timeout-ms (15000), --idle-ms (300: no
 * request in flight this long ends a load), --log-level (warn; the server's LOG_LEVEL),
 * --chromium=PATH (/usr/bin/chromium), --json-out=FILE.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { createUser } from '../src/accounts/create-user.ts';
import { openEmbedded } from '../src/db/database.ts';
import type { BaselineRoute } from './lib/app-baseline.ts';
import { benchDataDir, removeDataDir, stopLeftoverPostmaster } from './lib/cluster.ts';
import { BENCH_DIR, freePort, round1, setting, stop, stringArg, table, writeJsonOut } from './lib/common.ts';
import { percentile } from './lib/latency.ts';
import { codeVersion, loadavg, median } from './lib/scratch-db.ts';
import { logTail, SERVER_SCRIPT, serviceEnv, startAndWait, warningsIn } from './startup.ts';

const BASELINE_SCRIPT = join(BENCH_DIR, 'lib', 'app-baseline.ts');
const RANGES_OFFERED = [7, 28, 90];
/** What the service's API answers per overview load, counted against the session's 600 a minute. */
const API_REQUESTS_PER_LOAD = 9;
const SESSION_LIMIT_PER_MINUTE = 600;

const settings = {
  runs: Math.max(1, Math.round(setting('runs', 10))),
  ranges: (stringArg('ranges') ?? process.env.BENCH_RANGES ?? '28,90').split(',').map((s) => Number(s.trim())),
  viewport: { width: Math.round(setting('viewport-width', 1280)), height: Math.round(setting('viewport-height', 900)) },
  chartTimeoutMs: setting('chart-timeout-ms', 15_000),
  idleMs: setting('idle-ms', 300),
  logLevel: (stringArg('log-level') ?? process.env.BENCH_LOG_LEVEL ?? 'warn').trim(),
  chromium: stringArg('chromium') ?? process.env.BENCH_CHROMIUM ?? '/usr/bin/chromium',
};
for (const r of settings.ranges) if (!RANGES_OFFERED.includes(r)) throw new Error(`--ranges: ${r} is not a range the overview offers (${RANGES_OFFERED.join(', ')})`);

const TARGETS = {
  /** First meaningful paint of the overview, ms from navigation start. */
  paintMs: 1_000,
  /** Bytes the page loads, compressed: 150 KB read as 150,000 bytes (the stricter of KB and KiB). */
  bytes: 150_000,
};

const t0 = performance.now();
const sinceStart = () => round1((performance.now() - t0) / 1000);
const log = (line: string) => console.log(line);

// ---------------------------------------------------------------------------------------------
// The page side: marks set by an init script, figures read after the load.

/**
 * Runs in every page before its own scripts. The chart counts as drawn when its last group
 * (`g.events`) and a ranking row are in the document; painted at the task after the next frame.
 */
const INIT_SCRIPT = `(() => {
  const marks = { chartDom: null, chartRaf: null, chartFrame: null, chartPoints: 0, lcp: null, lcpElement: null, element: {} };
  Object.defineProperty(window, '__appBench', { value: marks });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) marks.element[e.identifier] = e.renderTime || e.loadTime;
    }).observe({ type: 'element', buffered: true });
  } catch {}
  const drawn = () => {
    if (!document.querySelector('#chart svg g.events') || !document.querySelector('#ranking tbody tr')) return false;
    marks.chartDom = performance.now();
    marks.chartPoints = document.querySelectorAll('#chart svg circle.point').length;
    // Element timing (as FCP, the time the frame was presented) for text of the chart and of the
    // ranking: set here, before their first paint.
    const tick = document.querySelector('#chart svg text');
    if (tick) tick.setAttribute('elementtiming', 'chart');
    const row = document.querySelector('#ranking tbody tr th');
    if (row) row.setAttribute('elementtiming', 'ranking');
    requestAnimationFrame(() => {
      marks.chartRaf = performance.now();
      setTimeout(() => { marks.chartFrame = performance.now(); }, 0);
    });
    return true;
  };
  const observer = new MutationObserver(() => { if (drawn()) observer.disconnect(); });
  observer.observe(document, { childList: true, subtree: true });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        marks.lcp = e.startTime;
        marks.lcpElement = e.element ? e.element.tagName.toLowerCase() + (e.element.id ? '#' + e.element.id : '') : (e.url || null);
      }
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  } catch {}
})();`;

const READ_FIGURES = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const resources = performance.getEntriesByType('resource');
  const m = window.__appBench;
  return {
    fcp: fcp ? fcp.startTime : null,
    lcp: m.lcp,
    lcpElement: m.lcpElement,
    chartDom: m.chartDom,
    chartFrame: m.chartFrame,
    chartElement: m.element.chart ?? null,
    rankingElement: m.element.ranking ?? null,
    chartPoints: m.chartPoints,
    dcl: nav ? nav.domContentLoadedEventEnd : null,
    load: nav ? nav.loadEventEnd : null,
    lastResponse: Math.max(nav ? nav.responseEnd : 0, ...resources.map((r) => r.responseEnd)),
    firstFetch: Math.min(...resources.filter((r) => r.initiatorType === 'fetch').map((r) => r.startTime)),
    status: (document.getElementById('status') || {}).textContent || '',
  };
})()`;

interface PageFigures {
  fcp: number | null;
  lcp: number | null;
  lcpElement: string | null;
  chartDom: number | null;
  chartFrame: number | null;
  chartElement: number | null;
  rankingElement: number | null;
  chartPoints: number;
  dcl: number | null;
  load: number | null;
  lastResponse: number;
  /** Infinity without one. */
  firstFetch: number;
  status: string;
}

// ---------------------------------------------------------------------------------------------
// The network side: the DevTools protocol's Network domain of one page.

const CATEGORIES = ['html', 'css', 'js', 'api', 'other'] as const;
type Category = (typeof CATEGORIES)[number];
const CATEGORY_LABEL: Record<Category, string> = { html: 'HTML', css: 'CSS', js: 'JS', api: 'API JSON', other: 'other' };

function categoryOf(type: string): Category {
  if (type === 'Document') return 'html';
  if (type === 'Stylesheet') return 'css';
  if (type === 'Script') return 'js';
  if (type === 'Fetch' || type === 'XHR') return 'api';
  return 'other';
}

interface RequestRecord {
  requestId: string;
  url: string;
  type: string;
  status?: number;
  encoding?: string;
  fromCache: boolean;
  /** Headers and body as received (0 from the cache). */
  wire: number;
  /** The body as received (compressed when it was sent so). */
  body: number;
  decoded: number;
  done: boolean;
  failed?: string;
}

interface Bytes {
  requests: number;
  fromCache: number;
  wire: number;
  body: number;
  decoded: number;
}

const noBytes = (): Bytes => ({ requests: 0, fromCache: 0, wire: 0, body: 0, decoded: 0 });

class NetworkLog {
  readonly requests = new Map<string, RequestRecord>();
  lastActivity = performance.now();
  readonly cdp: CDPSession;

  constructor(cdp: CDPSession) {
    this.cdp = cdp;
    cdp.on('Network.requestWillBeSent', (e) => {
      this.lastActivity = performance.now();
      this.requests.set(e.requestId, { requestId: e.requestId, url: e.request.url, type: e.type ?? 'Other', fromCache: false, wire: 0, body: 0, decoded: 0, done: false });
    });
    cdp.on('Network.requestServedFromCache', (e) => {
      const r = this.requests.get(e.requestId);
      if (r) r.fromCache = true;
    });
    cdp.on('Network.responseReceived', (e) => {
      const r = this.requests.get(e.requestId);
      if (!r) return;
      r.status = e.response.status;
      r.type = e.type;
      if (e.response.fromDiskCache || e.response.fromPrefetchCache) r.fromCache = true;
      const encoding = Object.entries(e.response.headers).find(([k]) => k.toLowerCase() === 'content-encoding')?.[1];
      if (encoding) r.encoding = encoding;
    });
    cdp.on('Network.dataReceived', (e) => {
      const r = this.requests.get(e.requestId);
      if (!r) return;
      r.body += e.encodedDataLength;
      r.decoded += e.dataLength;
    });
    cdp.on('Network.loadingFinished', (e) => {
      this.lastActivity = performance.now();
      const r = this.requests.get(e.requestId);
      if (!r) return;
      r.wire = e.encodedDataLength;
      r.done = true;
    });
    cdp.on('Network.loadingFailed', (e) => {
      this.lastActivity = performance.now();
      const r = this.requests.get(e.requestId);
      if (!r) return;
      r.done = true;
      r.failed = e.canceled ? 'canceled' : e.errorText;
    });
  }

  static async attach(context: BrowserContext, page: Page): Promise<NetworkLog> {
    const cdp = await context.newCDPSession(page);
    const network = new NetworkLog(cdp);
    await cdp.send('Network.enable');
    return network;
  }

  inFlight(): number {
    let n = 0;
    for (const r of this.requests.values()) if (!r.done) n++;
    return n;
  }

  /** Until no request has been in flight for `quietMs`, or `limitMs` passed. */
  async idle(quietMs: number, limitMs = 10_000): Promise<void> {
    const deadline = performance.now() + limitMs;
    while (performance.now() < deadline) {
      if (this.inFlight() === 0 && performance.now() - this.lastActivity >= quietMs) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`requests still in flight after ${limitMs} ms: ${[...this.requests.values()].filter((r) => !r.done).map((r) => r.url).join(', ')}`);
  }

  bytes(): Record<Category | 'total', Bytes> {
    const out = Object.fromEntries([...CATEGORIES, 'total'].map((c) => [c, noBytes()])) as Record<Category | 'total', Bytes>;
    for (const r of this.requests.values()) {
      for (const b of [out[categoryOf(r.type)], out.total]) {
        b.requests++;
        if (r.fromCache) b.fromCache++;
        b.wire += r.wire;
        b.body += r.body;
        b.decoded += r.decoded;
      }
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// One load

type PageKind = 'overview' | 'snapshot' | 'sign-in';
type CacheState = 'first' | 'cold' | 'warm-up' | 'warm';

interface Variant {
  name: string;
  kind: PageKind;
  range?: number;
  url: string;
  /** The session cookie to send (the overview), per cache state. */
  cookie?: { cold: Cookie; warm: Cookie };
  hasChart: boolean;
}

interface Cookie {
  name: string;
  value: string;
}

interface ApiBody {
  path: string;
  status: number;
  encoding: string | null;
  wire: number;
  body: number;
  identity: number;
  gzip6: number;
  br4: number;
}

interface LoadResult {
  variant: string;
  kind: PageKind;
  range: number | null;
  cache: CacheState;
  run: number;
  /** ms from navigation start. */
  fcpMs: number | null;
  lcpMs: number | null;
  lcpElement: string | null;
  chartInDomMs: number | null;
  /** requestAnimationFrame after the chart entered the DOM, then a task: the frame was produced. */
  chartFrameMs: number | null;
  /** Element timing of the chart's and the ranking's text (the later): the frame was presented, as FCP counts. */
  chartPaintMs: number | null;
  domContentLoadedMs: number | null;
  loadMs: number | null;
  lastResponseMs: number;
  /** The first fetch the page's scripts made (the API), from resource timing. */
  firstApiMs: number | null;
  chartPoints: number;
  bytes: Record<Category | 'total', Bytes>;
  statuses: Record<string, number>;
  encodings: Record<string, string>;
  errors: string[];
  apiBodies?: ApiBody[];
}

async function loadOnce(context: BrowserContext, variant: Variant, cache: CacheState, run: number, options: { readApiBodies?: boolean; snapshot?: boolean } = {}): Promise<{ result: LoadResult; html?: string }> {
  const page = await context.newPage();
  try {
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.addInitScript(INIT_SCRIPT);
    const network = await NetworkLog.attach(context, page);
    await page.goto(variant.url, { waitUntil: 'load', timeout: 30_000 });
    if (variant.hasChart) {
      // A function, not a string: the page's CSP (no 'unsafe-eval') refuses a string predicate.
      await page.waitForFunction(() => (globalThis as unknown as { __appBench: { chartFrame: number | null } }).__appBench.chartFrame !== null, undefined, { timeout: settings.chartTimeoutMs, polling: 20 }).catch(async (error: unknown) => {
        const status = await page.evaluate(`(document.getElementById('status') || {}).textContent`).catch(() => '?');
        throw new Error(`${variant.name} (${cache} ${run}): the chart was not drawn within ${settings.chartTimeoutMs} ms (status line "${String(status)}"; ${errors.join('; ')}): ${error instanceof Error ? error.message : String(error)}`);
      });
      // The element timing entries come once the frame has been presented.
      await page
        .waitForFunction(() => {
          const element = (globalThis as unknown as { __appBench: { element: Record<string, number> } }).__appBench.element;
          return element.chart !== undefined && element.ranking !== undefined;
        }, undefined, { timeout: 2_000, polling: 20 })
        .catch(() => undefined);
    } else {
      await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 5_000, polling: 20 }).catch(() => undefined);
    }
    await network.idle(settings.idleMs);
    const f = (await page.evaluate(READ_FIGURES)) as PageFigures;
    const statuses: Record<string, number> = {};
    const encodings: Record<string, string> = {};
    for (const r of network.requests.values()) {
      const key = r.failed ? `failed: ${r.failed}` : String(r.status ?? '?');
      statuses[key] = (statuses[key] ?? 0) + 1;
      const path = pathOf(r.url);
      if (r.encoding) encodings[path] = r.encoding;
      if (r.failed || (r.status !== undefined && r.status >= 400)) errors.push(`${r.failed ?? `HTTP ${r.status}`} ${path}`);
    }
    if (Object.keys(statuses).some((s) => s === '429')) throw new Error(`${variant.name}: the API answered 429 (the session's rate limit of ${SESSION_LIMIT_PER_MINUTE} a minute): lower --runs`);
    const result: LoadResult = {
      variant: variant.name,
      kind: variant.kind,
      range: variant.range ?? null,
      cache,
      run,
      fcpMs: roundMs(f.fcp),
      lcpMs: roundMs(f.lcp),
      lcpElement: f.lcpElement,
      chartInDomMs: roundMs(f.chartDom),
      chartFrameMs: roundMs(f.chartFrame),
      chartPaintMs: f.chartElement === null || f.rankingElement === null ? null : roundMs(Math.max(f.chartElement, f.rankingElement)),
      domContentLoadedMs: roundMs(f.dcl),
      loadMs: roundMs(f.load),
      lastResponseMs: round1(f.lastResponse),
      firstApiMs: roundMs(f.firstFetch),
      chartPoints: f.chartPoints,
      bytes: network.bytes(),
      statuses,
      encodings,
      errors,
    };
    if (options.readApiBodies) result.apiBodies = await apiBodies(network);
    if (!options.snapshot) return { result };
    return { result, html: await page.content() };
  } finally {
    await page.close();
  }
}

const roundMs = (n: number | null | undefined) => (n === null || n === undefined || !Number.isFinite(n) ? null : round1(n));

function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** The API responses of a load, read back, with what gzip and brotli would make of them. */
async function apiBodies(network: NetworkLog): Promise<ApiBody[]> {
  const out: ApiBody[] = [];
  for (const r of network.requests.values()) {
    if (categoryOf(r.type) !== 'api' || r.failed) continue;
    const { body, base64Encoded } = await network.cdp.send('Network.getResponseBody', { requestId: r.requestId });
    const raw = Buffer.from(body, base64Encoded ? 'base64' : 'utf8');
    out.push({
      path: pathOf(r.url),
      status: r.status ?? 0,
      encoding: r.encoding ?? null,
      wire: r.wire,
      body: r.body,
      identity: raw.length,
      gzip6: gzipSync(raw, { level: 6 }).length,
      br4: brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }).length,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Set-up helpers

/** One GET on loopback, the body as sent (not decoded). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${url}: no answer in 10 s`)));
    req.on('error', reject);
  });
}

async function signIn(origin: string, email: string, password: string): Promise<Cookie> {
  const res = await fetch(`${origin}/app/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /app/session for ${email} answered ${res.status}: ${text.slice(0, 300)}`);
  const first = res.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const eq = first.indexOf('=');
  if (eq <= 0) throw new Error(`POST /app/session set no cookie`);
  return { name: first.slice(0, eq), value: first.slice(eq + 1) };
}

/** The demo's sign-in and project, from what `node src/server.ts` printed when it seeded. */
function demoFromLog(file: string): { email: string; password: string; projectId: string } {
  const text = readFileSync(file, 'utf8');
  const signInLine = /app sign-in: (\S+) \/ (\S+)/.exec(text);
  const project = /bound to project ([0-9a-f-]{36})/i.exec(text);
  if (!signInLine?.[1] || !signInLine[2] || !project?.[1]) throw new Error(`the server printed no demo sign-in or project:\n${logTail(file)}`);
  return { email: signInLine[1], password: signInLine[2], projectId: project[1] };
}

/** A static copy of the drawn overview: no scripts, no module preloads; the stylesheet and icon links kept. */
function staticSnapshot(html: string): string {
  const out = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>\s*/g, '').replace(/<link rel="modulepreload"[^>]*>\s*/g, '');
  if (/<script\b/.test(out)) throw new Error('the snapshot still holds a script');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Summaries

interface Stat {
  p50: number;
  p90: number;
  n: number;
}

function stat(values: readonly (number | null)[]): Stat {
  const v = values.filter((x): x is number => x !== null && Number.isFinite(x)).sort((a, b) => a - b);
  return { p50: round1(median(v)), p90: round1(percentile(v, 90)), n: v.length };
}

interface Summary {
  variant: string;
  kind: PageKind;
  range: number | null;
  cache: CacheState;
  runs: number;
  fcp: Stat;
  lcp: Stat;
  chartPaint: Stat;
  chartInDom: Stat;
  chartFrame: Stat;
  domContentLoaded: Stat;
  load: Stat;
  lastResponse: Stat;
  firstApi: Stat;
  lcpElements: string[];
  chartPoints: number[];
  /** Median over the runs, per category. */
  bytes: Record<Category | 'total', Bytes>;
  errors: number;
}

function summarise(results: readonly LoadResult[]): Summary[] {
  const groups = new Map<string, LoadResult[]>();
  for (const r of results) {
    const key = `${r.variant}|${r.cache}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()].map((rs) => {
    const first = rs[0]!;
    const bytes = Object.fromEntries(
      [...CATEGORIES, 'total'].map((c) => {
        const of = (field: keyof Bytes) => median(rs.map((r) => r.bytes[c as Category | 'total'][field]));
        return [c, { requests: of('requests'), fromCache: of('fromCache'), wire: of('wire'), body: of('body'), decoded: of('decoded') }];
      }),
    ) as Record<Category | 'total', Bytes>;
    return {
      variant: first.variant,
      kind: first.kind,
      range: first.range,
      cache: first.cache,
      runs: rs.length,
      fcp: stat(rs.map((r) => r.fcpMs)),
      lcp: stat(rs.map((r) => r.lcpMs)),
      chartPaint: stat(rs.map((r) => r.chartPaintMs)),
      chartInDom: stat(rs.map((r) => r.chartInDomMs)),
      chartFrame: stat(rs.map((r) => r.chartFrameMs)),
      domContentLoaded: stat(rs.map((r) => r.domContentLoadedMs)),
      load: stat(rs.map((r) => r.loadMs)),
      lastResponse: stat(rs.map((r) => r.lastResponseMs)),
      firstApi: stat(rs.map((r) => r.firstApiMs)),
      lcpElements: [...new Set(rs.map((r) => r.lcpElement ?? '-'))],
      chartPoints: [...new Set(rs.map((r) => r.chartPoints))],
      bytes,
      errors: rs.reduce((a, r) => a + r.errors.length, 0),
    };
  });
}

const kB = (bytes: number) => round1(bytes / 1000);
const dash = (s: Stat) => (s.n === 0 ? '-' : s.p50);
const dash90 = (s: Stat) => (s.n === 0 ? '-' : s.p90);

function timingTable(summaries: readonly Summary[]): string {
  return table(
    ['page', 'cache', 'runs', 'FCP p50', 'FCP p90', 'chart painted p50', 'p90', 'chart in DOM p50', 'chart frame p50', 'LCP p50', 'DCL p50', 'load event p50', 'p90', 'first API request p50', 'last response p50'],
    summaries.map((s) => [s.variant, s.cache, s.runs, dash(s.fcp), dash90(s.fcp), dash(s.chartPaint), dash90(s.chartPaint), dash(s.chartInDom), dash(s.chartFrame), dash(s.lcp), dash(s.domContentLoaded), dash(s.load), dash90(s.load), dash(s.firstApi), dash(s.lastResponse)]),
  );
}

function bytesTable(summaries: readonly Summary[]): string {
  return table(
    ['page', 'cache', 'requests', 'from cache', ...CATEGORIES.map((c) => `${CATEGORY_LABEL[c]} kB`), 'total on the wire kB', 'bodies kB', 'decoded kB'],
    summaries.map((s) => [s.variant, s.cache, s.bytes.total.requests, s.bytes.total.fromCache, ...CATEGORIES.map((c) => kB(s.bytes[c].wire)), kB(s.bytes.total.wire), kB(s.bytes.total.body), kB(s.bytes.total.decoded)]),
  );
}

interface Compression {
  range: number;
  responses: number;
  encodings: string[];
  apiWire: number;
  apiIdentity: number;
  apiGzip6: number;
  apiBr4: number;
  /** The API's bytes on the wire if each body were gzipped (headers + `content-encoding: gzip`). */
  apiWireIfGzip: number;
  pageWire: number;
  pageWireIfGzip: number;
}

const CONTENT_ENCODING_HEADER = 'content-encoding: gzip\r\n'.length;

function compressionOf(result: LoadResult): Compression | undefined {
  const bodies = result.apiBodies;
  if (!bodies || result.range === null) return undefined;
  const sum = (f: (b: ApiBody) => number) => bodies.reduce((a, b) => a + f(b), 0);
  const apiWire = sum((b) => b.wire);
  // Headers stay; a body sent uncompressed would be its gzip instead (one already compressed stays).
  const apiWireIfGzip = sum((b) => (b.encoding ? b.wire : b.wire - b.body + b.gzip6 + CONTENT_ENCODING_HEADER));
  return {
    range: result.range,
    responses: bodies.length,
    encodings: [...new Set(bodies.map((b) => b.encoding ?? 'none'))],
    apiWire,
    apiIdentity: sum((b) => b.identity),
    apiGzip6: sum((b) => b.gzip6),
    apiBr4: sum((b) => b.br4),
    apiWireIfGzip,
    pageWire: result.bytes.total.wire,
    pageWireIfGzip: result.bytes.total.wire - apiWire + apiWireIfGzip,
  };
}

interface Verdict {
  target: string;
  met: boolean | undefined;
  detail: string;
}

function verdicts(summaries: readonly Summary[], compression: readonly Compression[]): Verdict[] {
  const out: Verdict[] = [];
  const find = (kind: PageKind, range: number, cache: CacheState) => summaries.find((s) => s.kind === kind && s.range === range && s.cache === cache);
  for (const range of settings.ranges) {
    for (const cache of ['cold', 'warm'] as const) {
      const s = find('overview', range, cache);
      const base = find('snapshot', range, cache);
      if (!s) continue;
      out.push({
        target: `overview ${range} d, ${cache} cache: first meaningful paint (chart and ranking painted) under ${TARGETS.paintMs} ms, median of ${s.runs}`,
        met: s.chartPaint.p50 < TARGETS.paintMs,
        detail: `p50 ${s.chartPaint.p50} ms, p90 ${s.chartPaint.p90} ms (p90 ${s.chartPaint.p90 < TARGETS.paintMs ? 'under' : 'OVER'} the target too); FCP p50 ${s.fcp.p50} ms` + (base ? `; static snapshot (bare Fastify): chart painted p50 ${base.chartPaint.p50} ms, +${round1(s.chartPaint.p50 - base.chartPaint.p50)} ms for the app` : ''),
      });
    }
    const cold = find('overview', range, 'cold');
    const c = compression.find((x) => x.range === range);
    if (cold) {
      out.push({
        target: `overview ${range} d, cold cache: bytes the page loads under ${TARGETS.bytes / 1000} kB on the wire (compressed as sent, headers included)`,
        met: cold.bytes.total.wire < TARGETS.bytes,
        detail: `${kB(cold.bytes.total.wire)} kB in ${cold.bytes.total.requests} requests (API JSON ${kB(cold.bytes.api.wire)} kB, sent ${c ? c.encodings.join('/') : '?'}; with the API gzipped ${c ? kB(c.pageWireIfGzip) : '?'} kB)`,
      });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const code = codeVersion();
  const loads: Record<string, string> = { start: loadavg() };
  log(`app bench: ${code}; Node ${process.version}; load average ${loads.start}`);
  const plannedPerUser = (settings.runs + 1) * API_REQUESTS_PER_LOAD;
  if (plannedPerUser > SESSION_LIMIT_PER_MINUTE) log(`  warning: ${settings.runs} runs make up to ${plannedPerUser} API requests per session; over ${SESSION_LIMIT_PER_MINUTE} in one minute the API answers 429`);
  const work = benchDataDir('app');
  const dataDir = join(work, 'data');
  const serverLog = join(work, 'server.log');
  const children = new Set<ChildProcess>();
  let server: ChildProcess | undefined;
  let baseline: ChildProcess | undefined;
  let browser: Browser | undefined;
  const results: LoadResult[] = [];
  /** The 1-minute load average after each run. */
  const loadSamples: number[] = [];
  let serverWarnings: ReturnType<typeof warningsIn> = { count: 0 };
  try {
    // 1. The service, the demo, a viewer per measured group.
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env = serviceEnv({ PORT: String(port), SIGHTLINE_DATA_DIR: dataDir, SIGHTLINE_DEMO: '1', SIGHTLINE_SAMPLING: '0', SIGHTLINE_VERIFY: '0', LOG_LEVEL: settings.logLevel });
    const started = await startAndWait(SERVER_SCRIPT, env, `${origin}/`, serverLog, children);
    server = started.child;
    log(`  server: node src/server.ts, pid ${server.pid}, embedded PostgreSQL in ${dataDir}; first 200 after ${started.startMs} ms (initdb, migrations, demo seed)`);
    const demo = demoFromLog(serverLog);
    const database = await openEmbedded(dataDir, { poolSize: 1 });
    const viewers: string[] = [];
    try {
      const project = await database.db.selectFrom('projects').select(['workspace_id']).where('id', '=', demo.projectId).executeTakeFirstOrThrow();
      for (const range of settings.ranges) {
        for (const cache of ['cold', 'warm']) {
          const email = `bench-app-${range}-${cache}@sightline.local`;
          await createUser(database.db, { workspaceId: project.workspace_id, email, password: demo.password, role: 'viewer' });
          viewers.push(email);
        }
      }
    } finally {
      await database.close();
    }
    const demoCookie = await signIn(origin, demo.email, demo.password);
    const cookies = new Map<string, Cookie>();
    for (const email of viewers) cookies.set(email, await signIn(origin, email, demo.password));
    log(`  demo project ${demo.projectId}; signed in as ${demo.email} and ${viewers.length} viewers of the demo workspace`);

    const overview = (range: number): Variant => ({
      name: `overview ${range} d`,
      kind: 'overview',
      range,
      url: `${origin}/projects/${demo.projectId}${range === 28 ? '' : `?range=${range}`}`,
      cookie: { cold: cookies.get(`bench-app-${range}-cold@sightline.local`)!, warm: cookies.get(`bench-app-${range}-warm@sightline.local`)! },
      hasChart: true,
    });
    const overviews = settings.ranges.map(overview);

    browser = await chromium.launch({
      executablePath: settings.chromium,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    log(`  Chromium ${browser.version()} (${settings.chromium}), headless, viewport ${settings.viewport.width}x${settings.viewport.height}, no throttling`);
    const newContext = async (cookie: Cookie | undefined) => {
      const context = await browser!.newContext({ viewport: settings.viewport });
      if (cookie) await context.addCookies([{ ...cookie, url: origin }]);
      return context;
    };

    // 2. The first load of each range (the server just started), whose DOM is the static snapshot.
    const routes: BaselineRoute[] = [];
    const snapshots = new Map<number, { path: string; bytes: number; gzipBytes: number; points: number }>();
    for (const v of overviews) {
      const context = await newContext(demoCookie);
      try {
        const { result, html } = await loadOnce(context, v, 'first', 0, { snapshot: true });
        results.push(result);
        report(result);
        const snapshot = staticSnapshot(html!);
        const path = `/overview-${v.range}.html`;
        const file = join(work, `overview-${v.range}.html`);
        const gz = gzipSync(snapshot);
        writeFileSync(`${file}.gz`, gz);
        writeFileSync(file, snapshot);
        routes.push({ path, file: `${file}.gz`, type: 'text/html; charset=utf-8', encoding: 'gzip', cacheControl: 'no-store' });
        snapshots.set(v.range!, { path, bytes: Buffer.byteLength(snapshot), gzipBytes: gz.length, points: result.chartPoints });
        // The stylesheet and icon exactly as the service sends them to Chromium.
        for (const href of new Set([...snapshot.matchAll(/href="(\/assets\/[a-z0-9.-]+)(\?v=[0-9a-f]+)?"/g)].map((m) => `${m[1]}${m[2] ?? ''}`))) {
          const name = href.split('?')[0]!;
          if (routes.some((r) => r.path === name)) continue;
          const asset = await rawGet(`${origin}${href}`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
          if (asset.status !== 200) throw new Error(`GET ${href} answered ${asset.status}`);
          const assetFile = join(work, `asset-${name.split('/').pop()}`);
          writeFileSync(assetFile, asset.body);
          const encoding = asset.headers['content-encoding'];
          routes.push({ path: name, file: assetFile, type: String(asset.headers['content-type']), ...(encoding ? { encoding } : {}), cacheControl: String(asset.headers['cache-control']) });
        }
      } finally {
        await context.close();
      }
    }
    const manifest = join(work, 'baseline.json');
    writeFileSync(manifest, JSON.stringify({ routes }, null, 2));
    const baselinePort = await freePort();
    const baselineOrigin = `http://127.0.0.1:${baselinePort}`;
    const baselineStarted = await startAndWait(BASELINE_SCRIPT, serviceEnv({ PORT: String(baselinePort), APP_BASELINE_MANIFEST: manifest }), `${baselineOrigin}${routes[0]!.path}`, join(work, 'baseline.log'), children);
    baseline = baselineStarted.child;
    log(`  baseline: bare Fastify (bench/lib/app-baseline.ts), pid ${baseline.pid}, serving ${routes.map((r) => `${r.path}${r.encoding ? ` (${r.encoding})` : ''}`).join(', ')}`);
    for (const [range, s] of snapshots) log(`    snapshot ${range} d: ${s.bytes} bytes of HTML (${s.gzipBytes} gzipped), ${s.points} chart points, no script`);

    const variants: Variant[] = [];
    for (const v of overviews) {
      variants.push(v);
      variants.push({ name: `static snapshot ${v.range} d (bare Fastify)`, kind: 'snapshot', range: v.range!, url: `${baselineOrigin}${snapshots.get(v.range!)!.path}`, hasChart: true });
    }
    variants.push({ name: 'sign-in page (service)', kind: 'sign-in', url: `${origin}/`, hasChart: false });

    // 3. Warm contexts: one per page, kept open, each primed by one load.
    const contexts = new Map<string, BrowserContext>();
    try {
      log(`\n  warm-up: a browser context per page, kept open, one load each`);
      for (const v of variants) {
        const context = await newContext(v.cookie?.warm);
        contexts.set(v.name, context);
        const { result } = await loadOnce(context, v, 'warm-up', 0);
        results.push(result);
        report(result);
      }
      // 4. The runs: every page cold (a new context) then warm (a new page in its context), so both
      // see the same machine (other work on it comes and goes).
      log(`\n  ${settings.runs} runs; in each, every page cold (a new browser context) then warm (a new page in its kept context)`);
      const readBodiesFor = new Set(overviews.map((v) => v.name));
      for (let run = 1; run <= settings.runs; run++) {
        for (const v of variants) {
          const context = await newContext(v.cookie?.cold);
          try {
            const { result } = await loadOnce(context, v, 'cold', run, { readApiBodies: readBodiesFor.delete(v.name) });
            results.push(result);
            report(result);
          } finally {
            await context.close();
          }
          const { result } = await loadOnce(contexts.get(v.name)!, v, 'warm', run);
          results.push(result);
          report(result);
        }
        loadSamples.push(Number(loadavg().split(' ')[0]));
      }
    } finally {
      for (const c of contexts.values()) await c.close();
    }
    loads.end = loadavg();
  } catch (error) {
    log(`  server log (last lines):\n${logTail(serverLog)}`);
    throw error;
  } finally {
    await browser?.close();
    for (const child of [baseline, server]) {
      if (!child) continue;
      const stopped = await stop(child);
      if (stopped.killed) console.warn(`warning: pid ${child.pid} did not exit within 10 s of SIGTERM; killed`);
    }
    for (const child of children) await stop(child);
    await stopLeftoverPostmaster(dataDir, 'the service');
    try {
      serverWarnings = warningsIn(serverLog, 0);
    } catch {
      // no log: the server never started
    }
    removeDataDir(work);
  }

  const measured = results.filter((r) => r.cache !== 'warm-up');
  const order = (s: Summary) => ['first', 'cold', 'warm'].indexOf(s.cache) * 1000 + (s.range ?? 1000) + (s.kind === 'overview' ? 0 : s.kind === 'snapshot' ? 1 : 2);
  const summaries = summarise(measured).sort((a, b) => order(a) - order(b));
  const compression = results.map(compressionOf).filter((c): c is Compression => c !== undefined);
  const verdictList = verdicts(summaries, compression);

  log(`\n=== the app: first paint and bytes; ${code}; Node ${process.version}; Chromium /usr/bin/chromium, headless, local`);
  log(`load average (1/5/15 min): start ${loads.start}; end ${loads.end}; 1-min after each run: ${loadSamples.join(', ')} (2 cores: above 2, other work on the machine competed)`);
  log(`whole run ${sinceStart()} s; ${settings.runs} runs per page and cache state; ms from navigation start; "chart painted" = first meaningful paint (element timing of the chart's and the ranking's text: the frame presented, as FCP); "chart frame": requestAnimationFrame + a task after the chart entered the DOM.`);
  log('"first": the first load of each range after the server started (its response cache empty), one each; cold: new browser context per load; warm: new page in a context that loaded the page before; cold and warm loads alternate.\n');
  log(timingTable(summaries));
  log('\nBytes per load (median over the runs), kB = 1000 bytes; per type, bytes on the wire (headers and body as received, compressed where the response was):\n');
  log(bytesTable(summaries));
  log('\nThe API responses of the first cold load of each range, read back and compressed here (gzip level 6, brotli quality 4: what an on-the-fly compressor would send):\n');
  log(
    table(
      ['range', 'API responses', 'content-encoding sent', 'API on the wire kB', 'API bodies kB', 'gzip-6 kB', 'br-4 kB', 'API on the wire if gzipped kB', 'page total kB', 'page total if API gzipped kB'],
      compression.map((c) => [`${c.range} d`, c.responses, c.encodings.join(', '), kB(c.apiWire), kB(c.apiIdentity), kB(c.apiGzip6), kB(c.apiBr4), kB(c.apiWireIfGzip), kB(c.pageWire), kB(c.pageWireIfGzip)]),
    ),
  );
  const largest = results.find((r) => r.apiBodies && r.range === Math.max(...settings.ranges))?.apiBodies ?? [];
  if (largest.length > 0) {
    log(`\nAPI responses of the ${Math.max(...settings.ranges)}-day overview, one by one:\n`);
    log(table(['path', 'status', 'sent as', 'on the wire', 'body', 'gzip-6', 'br-4'], largest.map((b) => [b.path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id').slice(0, 110), b.status, b.encoding ?? 'identity', b.wire, b.identity, b.gzip6, b.br4])));
  }
  log('\nTargets:\n');
  log(table(['target', 'met', 'figures'], verdictList.map((v) => [v.target, v.met === undefined ? 'n/a' : v.met ? 'met' : 'NOT MET', v.detail])));
  const withErrors = measured.filter((r) => r.errors.length > 0);
  if (withErrors.length > 0) log(`\nwarning: ${withErrors.length} loads logged errors, first: ${withErrors[0]!.variant} ${withErrors[0]!.cache} ${withErrors[0]!.run}: ${withErrors[0]!.errors.join('; ')}`);
  if (serverWarnings.count > 0) log(`\nwarning: the server logged ${serverWarnings.count} warn/error lines, first: ${serverWarnings.first ?? ''}`);
  writeJsonOut({ settings, targets: TARGETS, code, node: process.version, loads, loadSamples, summaries, compression, verdicts: verdictList, serverWarnings, results });
}

function report(r: LoadResult): void {
  const ms = (n: number | null) => (n === null ? '-' : String(n)).padStart(6);
  log(
    `    ${r.variant.padEnd(36)} ${r.cache.padEnd(7)} ${String(r.run).padStart(2)}  FCP ${ms(r.fcpMs)}  chart ${ms(r.chartPaintMs)}  load ${ms(r.loadMs)}  last response ${ms(r.lastResponseMs)} ms  ` +
      `${String(r.bytes.total.requests).padStart(2)} requests (${r.bytes.total.fromCache} cached), ${kB(r.bytes.total.wire)} kB on the wire${r.errors.length ? `  ERRORS: ${r.errors.join('; ')}` : ''}`,
  );
}

await main();
