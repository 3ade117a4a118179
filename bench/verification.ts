/**
 * Citation verification: URLs checked per second against local sites answering in 200 ms, and the
 * cost of a status flip on the rollups at the analytics bench project's size, each beside a baseline
 * measured in the same run. See bench/README.md ("Verification throughput").
 *
 *   node_modules/node/bin/node bench/verification.ts                                 # embedded PostgreSQL
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
 *     node_modules/node/bin/node bench/verification.ts --db=postgres                 # scratch databases on the server
 *
 * Part 1, throughput (`--parts` has `throughput`):
 * - The sites: lib/verification-sites.ts in its own process (its CPU is not the service's), one HTTP
 *   server on 127.0.0.1 answering for `--hosts` (20) hosts `site-<i>.test`, every response after
 *   `--delay-ms` (200), robots.txt after `--robots-delay-ms` (200: robots.txt is slow too). The hosts
 *   are mapped to it with `parseResolveMap('site-<i>.test:<port>:127.0.0.1,...')` (SIGHTLINE_RESOLVE);
 *   the guarded client's name lookup refuses every other name, so nothing leaves loopback.
 * - The URLs: `--urls` (400: 20 a host, as 1,000 over 50 hosts would be). URL j lives on host
 *   j % hosts; by (j % hosts + floor(j / hosts)) % 10: 0 -> `/missing-j` (404), 1 -> `/old-j` (301 to
 *   `/moved-j`, which answers 200), else `/page-j` (200 HTML, text of its own).
 *   Hosts with i % 10 == 9 answer 200 (a template page) for paths they do not know, so the soft-404
 *   probe finds a template there and every page of theirs is compared with it.
 * - The database: the embedded PostgreSQL in a fresh data directory `.tmp/bench-verification-<pid>`
 *   (`--db=embedded`, the default; stopped and deleted at the end), or a fresh database
 *   `sightline_bench_verification_<pid>` on the loopback server of DATABASE_URL (`--db=postgres`;
 *   dropped at the end). Migrated; the service's pool (10 connections).
 * - Each verifier run: a new project (brand Acme on `site-0.test`, competitor Globex on
 *   `site-1.test`: their missing pages flip to hallucinated and move the rollups), runs imported with
 *   `importRuns` citing the run's URLs (4 a run, no status: unchecked and due), then, timed,
 *   `verifyNow(deps, projectId, true)` (what `sightline verify --wait` does: rounds of 100 claimed URLs)
 *   with `createChecker` on a new guarded client (a cold robots.txt and probe cache, as a new CLI
 *   process has), `dnsHealth`, recheck 7 days and `concurrency` c.
 * - Its baseline, "HTTP alone": the same URLs fetched straight with a new guarded client, a HEAD then
 *   a GET each (the checker's headers, 5 redirects followed, 256 KiB read), c URLs at once, at most 2
 *   requests per host (the checker's host limiter), no robots.txt, no soft-404 probe, no database;
 *   hosts interleaved (URL j on host j % hosts). And at the highest concurrency, "HTTP alone, claim
 *   order": the first `--claim-order-urls` (120; 0 skips) of them sorted by URL, the order the import
 *   inserts cited URLs (upsert-cited-urls.ts), the order claims took them before hosts took turns
 *   (oldest verify_after first): by host.
 * - Also at the highest concurrency, "verifyNow, hosts interleaved" (`--interleaved`, 1; 0 skips): a
 *   verifier run whose URLs' verify_after the bench rewrote after the import so that claims take the
 *   hosts in turn; everything else as the verifier run. It shows what the claim order costs.
 * - Concurrencies `--concurrency` (32,8; 8 is SIGHTLINE_VERIFY_CONCURRENCY's default), each with all
 *   the URLs. `--rounds` (1) rounds, the order of baseline and verifier alternating; a warm-up of
 *   `--warmup-urls` (40) first, unmeasured. A verifier run still going after `--max-run-s` (120) has
 *   its unclaimed URLs put off and counts as a failure.
 * - Reported: URLs/s, requests per URL (counted by the sites), the sites' mean requests in flight,
 *   the distinct hosts in each round verifyNow claims,
 *   CPU per URL over the run (lib/contention.ts: this process ("service"); the database: the
 *   embedded postmaster and all its children, or the server's backends on the bench database; the
 *   sites; other work). CPU seconds are summed unrounded (process.cpuUsage for this process, /proc
 *   ticks for the others, rescanned every second so processes that exit still count; the rescans'
 *   own CPU is taken off this process's): a slow run uses a few hundredths of a core, below what
 *   rounded core figures resolve. Checked (a failure makes the exit status 1): every URL checked once, the
 *   statuses the pages call for (200 and 301 -> verified, 404 -> hallucinated), no error.
 *
 * Part 2, flips (`--parts` has `flips`):
 * - The analytics bench project (lib/analytics-setup.ts, lib/analytics-data.ts, as analytics.ts and
 *   reads.ts load it) at `--scale` (0.1); with `--keep`, `sightline_bench_analytics_s<scale>` on the
 *   server or `.tmp/bench-analytics-embedded-s<scale>`, imported once and reused.
 * - `recordVerdict` (record-verdict.ts) timed on one URL at a time, the claim set by the bench first
 *   (`verify_claim`, then the ClaimedUrl built from the row; not timed):
 *   - the brand's `--flip-urls` (5) most cited pages (verified, stale or broken) -> hallucinated and back;
 *   - the brand's `--flip-few` (3) least cited pages -> hallucinated and back;
 *   baselines: the same most cited brand pages -> stale and back (a change that does not cross
 *   hallucinated: movePageCitations moves nothing); the 3 most cited pages no subject owns ->
 *   hallucinated and back; the most cited brand pages given their own status again (no change).
 *   `--flip-reps` (3) round trips each, cases interleaved.
 * - Also reported: the project's cited URLs in rounds of 100 as claims take them: distinct hosts per round.
 * - Reported per case: ms per flip (median, p90, max), runs citing the page, subject_rollup rows
 *   the flip's transaction wrote (rows whose xmin is its transaction id), and one profiled round trip
 *   (statements through a logging Kysely). Checked after every flip: the brand's citations in
 *   subject_rollup (the cell of no filter, grouping 15) moved by exactly the completed runs citing the
 *   page (or not at all), and equal the count before after the flip back; at the start and the end,
 *   they equal the count from the runs themselves.
 * - The rows flipped are put back as they were afterwards (status, its source and time, the check's
 *   fields), the days the flips queued for change detection are unqueued and the data version reset,
 *   so a `--keep` database is left as found.
 *
 * Settings (argument, else BENCH_* variable): --db (embedded | postgres), --parts (throughput,flips),
 * --urls (400), --hosts (20), --concurrency (32,8), --delay-ms (200), --robots-delay-ms (200),
 * --rounds (1), --warmup-urls (40; 0 skips), --claim-order-urls (120), --interleaved (1), --max-run-s (120), --scale
 * (0.1), --keep, --end-day (2026-11-21), --flip-urls (5), --flip-few (3), --flip-reps (3), --profile
 * (1), --json-out=FILE.
 */
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { sql, type Kysely, type LogEvent } from 'kysely';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { DB } from '../src/db/types.ts';
import { createOutbound, OutboundError, type Outbound } from '../src/outbound/outbound.ts';
import { parseResolveMap, type ResolveMap } from '../src/outbound/resolve-map.ts';
import { serviceUserAgent } from '../src/outbound/user-agent.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { createProject } from '../src/projects/create-project.ts';
import { importRuns } from '../src/runs/import-runs.ts';
import { KEPT_GROUPINGS } from '../src/runs/rollup-cube.ts';
import type { CitationStatus } from '../src/runs/vocabulary.ts';
import { createHostLimiter } from '../src/verification/check-url.ts';
import { createChecker } from '../src/verification/checker.ts';
import type { ClaimedUrl } from '../src/verification/claim-urls.ts';
import { dnsHealth } from '../src/verification/dns-health.ts';
import { recordVerdict } from '../src/verification/record-verdict.ts';
import type { Decision } from '../src/verification/status-rules.ts';
import type { VerifierDeps } from '../src/verification/verifier.ts';
import { verifyNow, type VerifyResult } from '../src/verification/verify-now.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';
import { dataset } from './lib/analytics-data.ts';
import { countRuns, findOrCreateProject, importDataset, openEmbeddedTarget, openPostgresTarget, type ImportFigures, type SetupOptions, type Target } from './lib/analytics-setup.ts';
import { BENCH_DIR, flagArg, round1, setting, startChildServer, stop, stringArg, table, writeJsonOut } from './lib/common.ts';
import { cpuSnapshot, describeBusy, type Busy } from './lib/contention.ts';
import { codeVersion, loadavg, median } from './lib/scratch-db.ts';
import type { SitesStats } from './lib/verification-sites.ts';

const PARTS = ['throughput', 'flips'] as const;
type Part = (typeof PARTS)[number];

const settings = {
  db: (stringArg('db') ?? process.env.BENCH_DB ?? 'embedded').trim(),
  parts: (stringArg('parts') ?? process.env.BENCH_PARTS ?? PARTS.join(',')).split(',').map((p) => p.trim()).filter(Boolean) as Part[],
  urls: Math.max(1, Math.round(setting('urls', 400))),
  hosts: Math.max(2, Math.round(setting('hosts', 20))),
  concurrencies: (stringArg('concurrency') ?? process.env.BENCH_CONCURRENCY ?? '32,8')
    .split(',')
    .map((c) => Math.round(Number(c.trim())))
    .filter((c) => Number.isFinite(c) && c > 0),
  delayMs: setting('delay-ms', 200),
  robotsDelayMs: setting('robots-delay-ms', setting('delay-ms', 200)),
  rounds: Math.max(1, Math.round(setting('rounds', 1))),
  warmupUrls: Math.round(setting('warmup-urls', 40)),
  claimOrderUrls: Math.round(setting('claim-order-urls', 120)),
  interleaved: setting('interleaved', 1) > 0,
  maxRunS: setting('max-run-s', 120),
  scale: setting('scale', 0.1),
  keep: flagArg('keep'),
  endDay: stringArg('end-day') ?? '2026-11-21',
  flipUrls: Math.max(1, Math.round(setting('flip-urls', 5))),
  flipFew: Math.round(setting('flip-few', 3)),
  flipReps: Math.max(1, Math.round(setting('flip-reps', 3))),
  profile: setting('profile', 1) > 0,
};
if (settings.db !== 'embedded' && settings.db !== 'postgres') throw new Error(`--db must be embedded or postgres, got "${settings.db}"`);
if (settings.parts.length === 0 || settings.parts.some((p) => !PARTS.includes(p))) throw new Error(`--parts must list throughput and/or flips, got "${settings.parts.join(',')}"`);
if (settings.concurrencies.length === 0) throw new Error('--concurrency must list at least one positive number, e.g. 32,8');
if (!(settings.scale > 0 && settings.scale <= 1)) throw new Error(`--scale must be above 0 and at most 1, got ${settings.scale}`);

const log = (line: string) => console.log(line);
const t0 = performance.now();
const sinceStart = () => round1((performance.now() - t0) / 1000);
const round2 = (n: number) => Math.round(n * 100) / 100;
const problems: string[] = [];
/** The checker's own request settings (check-url.ts), for the baseline. */
const PAGE_HEADERS = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
const MAX_BYTES = 256 * 1024;
const REQUEST_TIMEOUT_MS = 10_000;
const RECHECK_DAYS = 7;
/** verify-now.ts claims URLs in rounds of this many. */
const VERIFY_NOW_ROUND = 100;
const DAY_MS = 86_400_000;

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** The server's shared processes (checkpointer, WAL writer...): server only; the embedded's are the database's. */
const sharedCoresOf = (b: Busy) => (settings.db === 'embedded' ? 0 : b.sharedCores);

async function openTarget(setup: SetupOptions): Promise<Target> {
  const target = settings.db === 'postgres' ? await openPostgresTarget(setup) : await openEmbeddedTarget(setup);
  try {
    await migrateToLatest(target.database.db);
  } catch (error) {
    await target.cleanup();
    throw error;
  }
  return target;
}

// ---------------------------------------------------------------------------------------------
// The sites, in their own process

interface Sites {
  child: ChildProcess;
  pid: number;
  port: number;
  stats(): Promise<SitesStats>;
  /** Counts back to zero; returns those before. */
  reset(): Promise<SitesStats>;
}

async function startSites(): Promise<Sites> {
  const spec = { delayMs: settings.delayMs, robotsDelayMs: settings.robotsDelayMs };
  const { child, port, pid } = await startChildServer(join(BENCH_DIR, 'lib', 'verification-sites.ts'), spec, 'the sites');
  const get = async (path: string) => (await (await fetch(`http://127.0.0.1:${port}${path}`)).json()) as SitesStats;
  return { child, pid, port, stats: () => get('/__stats'), reset: () => get('/__reset') };
}

interface CitedSpec {
  url: string;
  kind: 'page' | 'missing' | 'redirect';
}

/** URL j: on host j % hosts; its kind by (host + floor(j / hosts)) % 10 (every host and every ten URLs have every kind). */
function urlSet(port: number, n: number): CitedSpec[] {
  const out: CitedSpec[] = [];
  for (let j = 0; j < n; j++) {
    const host = `site-${j % settings.hosts}.test`;
    const k = ((j % settings.hosts) + Math.floor(j / settings.hosts)) % 10;
    const [kind, path] = k === 0 ? (['missing', `/missing-${j}`] as const) : k === 1 ? (['redirect', `/old-${j}`] as const) : (['page', `/page-${j}`] as const);
    out.push({ url: `http://${host}:${port}${path}`, kind });
  }
  return out;
}

function resolveMapFor(port: number): ResolveMap {
  return parseResolveMap(Array.from({ length: settings.hosts }, (_, i) => `site-${i}.test:${port}:127.0.0.1`).join(','));
}

/** The guarded client as the service makes it, the sites mapped; every other name "does not exist". */
function sitesOutbound(port: number): Outbound {
  return createOutbound({
    userAgent: serviceUserAgent('http://127.0.0.1'),
    resolve: resolveMapFor(port),
    lookup: async (host) => Promise.reject(Object.assign(new Error(`${host}: the bench resolves no name`), { code: 'ENOTFOUND' })),
  });
}

// ---------------------------------------------------------------------------------------------
// Part 1: throughput

type Kind = 'HTTP alone (baseline)' | 'HTTP alone, claim order' | 'verifyNow' | 'verifyNow, hosts interleaved';
const KINDS: Kind[] = ['HTTP alone (baseline)', 'HTTP alone, claim order', 'verifyNow', 'verifyNow, hosts interleaved'];

interface Cpu {
  seconds: number;
  machineCores: number;
  serviceCores: number;
  dbCores: number;
  /** Server only: its checkpointer, WAL writer... (not in dbCores). */
  sharedCores: number;
  sitesCores: number;
  otherCores: number;
  /** CPU seconds over the run, unrounded. */
  serviceS: number;
  dbS: number;
  sitesS: number;
}

export interface RunResult {
  kind: Kind;
  concurrency: number;
  round: number;
  urls: number;
  seconds: number;
  perSecond: number;
  sites: SitesStats;
  requestsPerUrl: number;
  cpu: Cpu;
  serviceMsPerUrl: number;
  dbMsPerUrl: number;
  sitesMsPerUrl: number;
  totalMsPerUrl: number;
  verify?: VerifyResult;
  /** verifyNow: distinct hosts in each round of URLs it claims (hosts in turn among the oldest due, 100 a round). */
  hostsPerRound?: number[];
  problems: string[];
  loadavg: string;
}

const results: RunResult[] = [];

interface Clock {
  start(): void;
  end(): void;
}

/**
 * CPU seconds, unrounded, of this process and of the database's processes (target.databasePids(),
 * rescanned every second so that one exiting still counts up to its last reading). For the embedded
 * cluster (`family`: the postmaster first, with its reaped children's time, then its children), a
 * child that exits is reaped into the postmaster's count: only the time it had before the start is
 * taken off.
 */
class CpuSeconds {
  readonly #pids: () => number[];
  readonly #family: boolean;
  #first = new Map<number, number>();
  #last = new Map<number, number>();
  #root: number | undefined;
  #self = process.cpuUsage();
  /** This process's CPU spent in the periodic rescans: the bench's, not the service's. */
  #overheadUs = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(pids: () => number[], family: boolean) {
    this.#pids = pids;
    this.#family = family;
  }

  #scan(initial: boolean): Set<number> {
    const pids = this.#pids();
    if (initial) this.#root = pids[0];
    const snap = cpuSnapshot(pids);
    for (const [pid, ticks] of snap.perPid) {
      if (!this.#first.has(pid)) this.#first.set(pid, initial ? ticks : 0);
      this.#last.set(pid, ticks);
    }
    return new Set(snap.perPid.keys());
  }

  start(): void {
    this.#first.clear();
    this.#last.clear();
    this.#scan(true);
    this.#self = process.cpuUsage();
    this.#overheadUs = 0;
    this.#timer = setInterval(() => {
      const before = process.cpuUsage();
      this.#scan(false);
      const spent = process.cpuUsage(before);
      this.#overheadUs += spent.user + spent.system;
    }, 1_000);
    this.#timer.unref();
  }

  stop(): { serviceS: number; dbS: number } {
    clearInterval(this.#timer);
    const used = process.cpuUsage(this.#self);
    const alive = this.#scan(false);
    let ticks = 0;
    for (const [pid, first] of this.#first) {
      const last = this.#last.get(pid) ?? first;
      if (this.#family && pid !== this.#root && !alive.has(pid)) ticks -= first;
      else ticks += last - first;
    }
    return { serviceS: Math.max(0, used.user + used.system - this.#overheadUs) / 1e6, dbS: ticks / 100 };
  }
}

/** Measures `work` (which says when the run starts and ends) with the CPU of everything involved. */
async function measured(target: Target, sites: Sites, kind: Kind, concurrency: number, round: number, urls: number, work: (clock: Clock) => Promise<{ problems: string[]; verify?: VerifyResult; hostsPerRound?: number[] }>): Promise<RunResult> {
  await sites.reset();
  const meter = target.meter();
  const cpuSeconds = new CpuSeconds(() => target.databasePids(), settings.db === 'embedded');
  let used = { serviceS: 0, dbS: 0 };
  let sitesBefore = cpuSnapshot([sites.pid]);
  let sitesAfter = sitesBefore;
  let busy: Busy | undefined;
  let startedAt = 0;
  let endedAt = 0;
  const out = await work({
    start() {
      sitesBefore = cpuSnapshot([sites.pid]);
      // Machine, other work and the server's shared processes only: scanned at the start and the end.
      meter.start(false);
      cpuSeconds.start();
      startedAt = performance.now();
    },
    end() {
      endedAt = performance.now();
      used = cpuSeconds.stop();
      busy = meter.stop();
      sitesAfter = cpuSnapshot([sites.pid]);
    },
  });
  if (startedAt === 0 || endedAt === 0) throw new Error(`${kind}: the run never started or ended its clock`);
  if (!busy) throw new Error('CPU measurement needs Linux /proc');
  const stats = await sites.stats();
  const wall = (endedAt - startedAt) / 1000;
  const sitesS = (sitesAfter.perPid.get(sites.pid)! - (sitesBefore.perPid.get(sites.pid) ?? 0)) / 100;
  const round3 = (n: number) => Math.round(n * 1000) / 1000;
  const cores = (s: number) => round3(s / wall);
  const sharedCores = round2(sharedCoresOf(busy));
  const cpu: Cpu = {
    seconds: round2(wall),
    machineCores: busy.machineCores,
    serviceCores: cores(used.serviceS),
    dbCores: cores(used.dbS),
    sharedCores,
    sitesCores: cores(sitesS),
    otherCores: round2(Math.max(0, busy.machineCores - (used.serviceS + used.dbS + sitesS) / wall - sharedCores)),
    serviceS: round3(used.serviceS),
    dbS: round3(used.dbS),
    sitesS: round3(sitesS),
  };
  const seconds = wall;
  const perUrl = (s: number) => round2((s * 1000) / urls);
  const result: RunResult = {
    kind,
    concurrency,
    round,
    urls,
    seconds: round2(seconds),
    perSecond: round1(urls / seconds),
    sites: stats,
    requestsPerUrl: round2(stats.answered / urls),
    cpu,
    serviceMsPerUrl: perUrl(used.serviceS),
    dbMsPerUrl: perUrl(used.dbS),
    sitesMsPerUrl: perUrl(sitesS),
    totalMsPerUrl: perUrl(used.serviceS + used.dbS),
    ...(out.verify ? { verify: out.verify } : {}),
    ...(out.hostsPerRound ? { hostsPerRound: out.hostsPerRound } : {}),
    problems: [...out.problems],
    loadavg: loadavg(),
  };
  if (stats.unexpected > 0) result.problems.push(`the sites got ${stats.unexpected} requests for hosts they do not serve`);
  if (stats.maxInFlightPerHost > 2) result.problems.push(`${stats.maxInFlightPerHost} requests at once for one host (the checker's limit is 2)`);
  const kinds = Object.entries(stats.byKind).map(([k, n]) => `${k} ${n}`).join(', ');
  log(
    `  ${kind.padEnd(23)} c=${String(concurrency).padStart(3)} round ${round}: ${String(urls).padStart(5)} URLs in ${seconds.toFixed(2).padStart(6)} s = ${String(result.perSecond).padStart(6)}/s; ` +
      `${stats.answered} requests (${kinds}; ${result.requestsPerUrl}/URL), ${stats.meanInFlight} in flight on average, ${stats.maxInFlight} at most, ${stats.maxInFlightPerHost} at most on one host; ` +
      `CPU ms/URL: service ${result.serviceMsPerUrl}, db ${result.dbMsPerUrl}, sites ${result.sitesMsPerUrl}; cores: service ${cpu.serviceCores}, db ${cpu.dbCores}${settings.db === 'postgres' ? `, server-wide ${cpu.sharedCores}` : ''}, sites ${cpu.sitesCores}, other ${cpu.otherCores}` +
      `${out.hostsPerRound ? `; hosts per claimed round of ${VERIFY_NOW_ROUND}: ${out.hostsPerRound.join(' ')}` : ''}` +
      `${result.problems.length ? `\n    FAILED: ${result.problems.join('; ')}` : ''}`,
  );
  for (const p of result.problems) problems.push(`${kind}, c=${concurrency}, round ${round}: ${p}`);
  return result;
}

/**
 * The baseline: HEAD then GET of every URL through the guarded client, c at once, 2 per host; nothing
 * else. In the order given: hosts interleaved (the baseline), or sorted by URL as claims take them.
 */
async function baselineRun(target: Target, sites: Sites, urls: CitedSpec[], concurrency: number, round: number, kind: Kind = 'HTTP alone (baseline)'): Promise<RunResult> {
  return measured(target, sites, kind, concurrency, round, urls.length, async (clock) => {
    const outbound = sitesOutbound(sites.port);
    const limiter = createHostLimiter(2);
    const failures: string[] = [];
    try {
      clock.start();
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < urls.length; i = next++) {
          const { url, kind } = urls[i]!;
          const host = new URL(url).hostname;
          for (const method of ['HEAD', 'GET'] as const) {
            try {
              const headers: Record<string, string> = method === 'GET' ? { ...PAGE_HEADERS, range: `bytes=0-${MAX_BYTES - 1}` } : PAGE_HEADERS;
              const response = await limiter.run(host, () => outbound.request(url, { method, headers, timeoutMs: REQUEST_TIMEOUT_MS, maxBytes: MAX_BYTES, maxRedirects: 5 }));
              const expected = kind === 'missing' ? 404 : 200;
              if (response.status !== expected) failures.push(`${method} ${url}: ${response.status}, not ${expected}`);
            } catch (error) {
              failures.push(`${method} ${url}: ${error instanceof OutboundError ? error.failure : ''} ${(error as Error).message}`);
            }
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, urls.length) }, worker));
      clock.end();
    } finally {
      await outbound.close();
    }
    return { problems: failures.length ? [`${failures.length} requests failed, first: ${failures[0]}`] : [] };
  });
}

let projectCount = 0;

/** A new project whose imported runs cite `urls` (4 a run, no status: unchecked, due now). */
async function makeProject(db: Kysely<DB>, workspaceId: string, urls: CitedSpec[]): Promise<string> {
  const n = ++projectCount;
  const { id: projectId } = await createProject(db, workspaceId, { name: 'Acme', domain: 'site-0.test', color: '#112233' });
  await addCompetitor(db, projectId, { name: 'Globex', domain: 'site-1.test' });
  const lines: string[] = [];
  const perRun = 4;
  for (let r = 0; r * perRun < urls.length; r++) {
    const ranAt = new Date(Date.now() - (1 + (r % 7)) * DAY_MS).toISOString();
    lines.push(
      JSON.stringify({
        engine: r % 2 ? 'chatgpt' : 'perplexity',
        prompt: `best crm, project ${n} #${r % 20}`,
        ranAt,
        status: 'ok',
        mentions: [{ subject: 'Acme' }],
        citations: urls.slice(r * perRun, (r + 1) * perRun).map((u) => ({ url: u.url })),
      }),
    );
  }
  const imported = await importRuns(db, projectId, lines);
  if (imported.rejected > 0) throw new Error(`the import rejected ${imported.rejected} lines, first: ${JSON.stringify(imported.errors[0])}`);
  const row = await sql<{ n: number; unchecked: number; owned: number }>`
    select count(*)::int as n, count(*) filter (where status = 'unchecked')::int as unchecked, count(*) filter (where subject_id is not null)::int as owned
    from cited_urls where project_id = ${projectId}`.execute(db);
  const counts = row.rows[0]!;
  if (counts.n !== urls.length || counts.unchecked !== urls.length) throw new Error(`the project cites ${counts.n} URLs (${counts.unchecked} unchecked), not ${urls.length}`);
  if (counts.owned === 0) throw new Error('no cited URL belongs to the brand or the competitor: the flips would move nothing');
  return projectId;
}

/** The distinct hosts in each round of 100 URLs the claims take. */
async function hostsPerClaimRound(db: Kysely<DB>, projectId: string): Promise<number[]> {
  const order = await db.selectFrom('cited_urls').select('host').where('project_id', '=', projectId).orderBy('verify_after').orderBy('id').execute();
  return claimRounds(order.map((r) => r.host), VERIFY_NOW_ROUND);
}

/**
 * The distinct hosts in each round of `size` URLs, claimed as `claimUrls` claims them: of the
 * `size * 20` oldest still due (`hosts` is every URL's host, oldest first), each host's first URL,
 * then each host's second, and so on, oldest first within a turn.
 */
function claimRounds(hosts: readonly string[], size: number): number[] {
  let due = hosts.map((host, age) => ({ host, age }));
  const out: number[] = [];
  while (due.length > 0) {
    const turns = new Map<string, number>();
    const window = due.slice(0, size * 20).map((u) => {
      const turn = (turns.get(u.host) ?? 0) + 1;
      turns.set(u.host, turn);
      return { ...u, turn };
    });
    const taken = window.sort((a, b) => a.turn - b.turn || a.age - b.age).slice(0, size);
    out.push(new Set(taken.map((u) => u.host)).size);
    const ages = new Set(taken.map((u) => u.age));
    due = due.filter((u) => !ages.has(u.age));
  }
  return out;
}

/**
 * The bench's own reordering (not the service's): verify_after rewritten so that claims take the
 * hosts in turn (each host's first URL, then each host's second...), all still due.
 */
async function interleaveHosts(db: Kysely<DB>, projectId: string): Promise<void> {
  await sql`
    with ranked as (
      select id, row_number() over (partition by host order by verify_after, id) as k, dense_rank() over (order by host) as h
      from cited_urls where project_id = ${projectId}
    )
    update cited_urls c set verify_after = now() - interval '1 hour' + (ranked.k * 10000 + ranked.h) * interval '1 millisecond'
    from ranked where c.project_id = ${projectId} and c.id = ranked.id`.execute(db);
}

/** verifyNow over a new project citing `urls`, with a new checker (cold caches, as a new `sightline verify --wait`). */
async function verifierRun(target: Target, sites: Sites, workspaceId: string, urls: CitedSpec[], concurrency: number, round: number, interleaved = false): Promise<RunResult> {
  const db = target.database.db;
  const projectId = await makeProject(db, workspaceId, urls);
  if (interleaved) await interleaveHosts(db, projectId);
  const hostsPerRound = await hostsPerClaimRound(db, projectId);
  return measured(target, sites, interleaved ? 'verifyNow, hosts interleaved' : 'verifyNow', concurrency, round, urls.length, async (clock) => {
    const outbound = sitesOutbound(sites.port);
    const errors: unknown[] = [];
    const deps: VerifierDeps = { db, check: createChecker(outbound), dnsWorks: dnsHealth(outbound), now: () => new Date(), recheckDays: RECHECK_DAYS, concurrency, onError: (error) => errors.push(error) };
    const out: string[] = [];
    let timedOut = false;
    // A run past --max-run-s: the URLs not yet claimed are put off a day, so verifyNow ends after its round.
    const guard = setTimeout(() => {
      timedOut = true;
      void sql`update cited_urls set verify_after = now() + interval '1 day' where project_id = ${projectId} and status = 'unchecked' and verify_claim is null`.execute(db).catch(() => undefined);
    }, settings.maxRunS * 1000);
    let result: VerifyResult;
    try {
      clock.start();
      result = await verifyNow(deps, projectId, true);
      clock.end();
    } finally {
      clearTimeout(guard);
      await outbound.close();
    }
    if (timedOut) out.push(`unfinished after ${settings.maxRunS} s (--max-run-s): the URLs not yet claimed were put off`);
    const want = { verified: urls.filter((u) => u.kind !== 'missing').length, hallucinated: urls.filter((u) => u.kind === 'missing').length };
    if (result.checked !== urls.length || result.verified !== want.verified || result.hallucinated !== want.hallucinated) {
      out.push(`verifyNow said ${JSON.stringify(result)}; expected ${urls.length} checked: ${want.verified} verified, ${want.hallucinated} hallucinated`);
    }
    const statuses = await sql<{ status: string; source: string; n: number }>`
      select status, status_source as source, count(*)::int as n from cited_urls where project_id = ${projectId} group by 1, 2 order by 1, 2`.execute(db);
    const byStatus = Object.fromEntries(statuses.rows.map((r) => [`${r.status}/${r.source}`, r.n]));
    if ((byStatus['verified/check'] ?? 0) !== want.verified || (byStatus['hallucinated/check'] ?? 0) !== want.hallucinated) out.push(`statuses in cited_urls: ${JSON.stringify(byStatus)}`);
    if (errors.length > 0) out.push(`${errors.length} errors reported by the verifier, first: ${String((errors[0] as Error)?.stack ?? errors[0]).slice(0, 400)}`);
    return { problems: out, verify: result, hostsPerRound };
  });
}

interface Combined {
  kind: Kind;
  concurrency: number;
  urls: number;
  rounds: RunResult[];
  perSecond: number;
  seconds: number;
  requestsPerUrl: number;
  meanInFlight: number;
  serviceMsPerUrl: number;
  dbMsPerUrl: number;
  sitesMsPerUrl: number;
  totalMsPerUrl: number;
  otherCores: number;
  /** verifyNow: median distinct hosts per claimed round. */
  hostsPerRound: number | undefined;
  failed: number;
}

function combine(runs: RunResult[]): Combined[] {
  const out: Combined[] = [];
  for (const c of settings.concurrencies) {
    for (const kind of KINDS) {
      const rounds = runs.filter((r) => r.kind === kind && r.concurrency === c);
      if (rounds.length === 0) continue;
      const med = (f: (r: RunResult) => number) => round2(median(rounds.map(f)));
      out.push({
        kind,
        concurrency: c,
        urls: rounds[0]!.urls,
        rounds,
        perSecond: round1(median(rounds.map((r) => r.perSecond))),
        seconds: med((r) => r.seconds),
        requestsPerUrl: med((r) => r.requestsPerUrl),
        meanInFlight: med((r) => r.sites.meanInFlight),
        serviceMsPerUrl: med((r) => r.serviceMsPerUrl),
        dbMsPerUrl: med((r) => r.dbMsPerUrl),
        sitesMsPerUrl: med((r) => r.sitesMsPerUrl),
        totalMsPerUrl: med((r) => r.totalMsPerUrl),
        otherCores: med((r) => r.cpu.otherCores),
        hostsPerRound: rounds[0]!.hostsPerRound ? median(rounds.flatMap((r) => r.hostsPerRound ?? [])) : undefined,
        failed: rounds.filter((r) => r.problems.length > 0).length,
      });
    }
  }
  return out;
}

/** Page requests a URL of the mix needs at least (HEAD + GET, each 2 hops for a redirect): the ideal is c / (that x delay). */
function pageRequestsPerUrl(urls: CitedSpec[]): number {
  return urls.reduce((a, u) => a + (u.kind === 'redirect' ? 4 : 2), 0) / urls.length;
}

interface ThroughputResult {
  target: { label: string; where: string };
  sitesPid: number;
  runs: RunResult[];
  combined: Combined[];
  ideal: { concurrency: number; urls: number; pageRequestsPerUrl: number; urlsPerSecond: number }[];
}

async function throughputPart(): Promise<ThroughputResult> {
  log(
    `part 1, throughput: ${settings.hosts} hosts site-<i>.test on one local server (its own process), every response after ${settings.delayMs} ms, robots.txt after ${settings.robotsDelayMs} ms; ` +
      `URLs: 80% pages (200), 10% missing (404), 10% moved (301 -> 200); ${settings.urls} URLs (${round1(settings.urls / settings.hosts)} a host) at concurrency ${settings.concurrencies.join(', ')}; ${settings.rounds} round(s)`,
  );
  const sites = await startSites();
  let target: Target | undefined;
  try {
    target = await openTarget({ scale: settings.scale, keep: false, tag: 'verification', scratchName: `sightline_bench_verification_${process.pid}` });
    log(`  ${target.label}: ${target.where}; sites pid ${sites.pid} on 127.0.0.1:${sites.port}`);
    const db = target.database.db;
    const { id: workspaceId } = await createWorkspace(db, { name: 'Verification bench', plan: 'enterprise' });

    if (settings.warmupUrls > 0) {
      const warm = urlSet(sites.port, settings.warmupUrls);
      log(`warm-up (${warm.length} URLs at c=${settings.concurrencies[0]}, not counted):`);
      await verifierRun(target, sites, workspaceId, warm, settings.concurrencies[0]!, 0);
      await baselineRun(target, sites, warm, settings.concurrencies[0]!, 0);
      results.length = 0;
    }
    log(`runs (load average ${loadavg()}):`);
    for (let round = 1; round <= settings.rounds; round++) {
      for (const c of settings.concurrencies) {
        const urls = urlSet(sites.port, settings.urls);
        const order = (round + settings.concurrencies.indexOf(c)) % 2 === 0 ? ['verifier', 'baseline'] : ['baseline', 'verifier'];
        for (const which of order) results.push(which === 'baseline' ? await baselineRun(target, sites, urls, c, round) : await verifierRun(target, sites, workspaceId, urls, c, round));
        if (c === Math.max(...settings.concurrencies)) {
          // The same HTTP in the order claims take URLs (sorted by URL, so by host).
          if (settings.claimOrderUrls > 0) {
            const sorted = [...urls].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0)).slice(0, settings.claimOrderUrls);
            results.push(await baselineRun(target, sites, sorted, c, round, 'HTTP alone, claim order'));
          }
          // The verifier with the hosts taken in turn (verify_after reordered by the bench).
          if (settings.interleaved) results.push(await verifierRun(target, sites, workspaceId, urls, c, round, true));
        }
      }
    }
    const ideal = settings.concurrencies.map((c) => {
      const urls = urlSet(sites.port, settings.urls);
      const perUrl = pageRequestsPerUrl(urls);
      return { concurrency: c, urls: urls.length, pageRequestsPerUrl: round2(perUrl), urlsPerSecond: round1(c / ((perUrl * settings.delayMs) / 1000)) };
    });
    return { target: { label: target.label, where: target.where }, sitesPid: sites.pid, runs: [...results], combined: combine(results), ideal };
  } finally {
    await target?.cleanup();
    const stopped = await stop(sites.child);
    if (stopped.killed) console.warn('warning: the sites did not exit on SIGTERM; killed');
  }
}

function throughputTable(t: ThroughputResult): string {
  return table(
    ['run', 'c', 'URLs', 'seconds', 'URLs/s', 'by round', 'of baseline', 'ideal/s', 'requests/URL', 'in flight at sites', 'hosts per claimed round', 'service CPU ms/URL', 'db CPU ms/URL', 'total ms/URL', 'beyond baseline ms/URL', 'sites CPU ms/URL', 'other cores'],
    t.combined.map((c) => {
      const base = t.combined.find((b) => b.kind === 'HTTP alone (baseline)' && b.concurrency === c.concurrency);
      const isBase = c.kind === 'HTTP alone (baseline)';
      return [
        `${c.kind}${c.failed ? ' FAILED' : ''}`,
        c.concurrency,
        c.urls,
        c.seconds,
        c.perSecond,
        c.rounds.map((r) => r.perSecond).join(' / '),
        isBase || !base ? '-' : `${round1((c.perSecond / base.perSecond) * 100)}%`,
        t.ideal.find((i) => i.concurrency === c.concurrency)?.urlsPerSecond ?? '-',
        c.requestsPerUrl,
        c.meanInFlight,
        c.hostsPerRound ?? '-',
        c.serviceMsPerUrl,
        c.dbMsPerUrl,
        c.totalMsPerUrl,
        isBase || !base ? '-' : round2(c.totalMsPerUrl - base.totalMsPerUrl),
        c.sitesMsPerUrl,
        c.otherCores,
      ];
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Part 2: the cost of a status flip at the analytics bench project's size

interface PageRow {
  id: string;
  url: string;
  status: CitationStatus;
  subject_type: string | null;
  subject_id: string | null;
  /** Completed runs citing it. */
  runs: number;
  /** Their days. */
  days: string[];
}

type FlipCase = 'brand, most cited: -> hallucinated and back' | 'brand, least cited: -> hallucinated and back' | 'baseline: brand, most cited: -> stale and back' | 'baseline: no subject owns it: -> hallucinated and back' | 'baseline: same status again (no change)';
const FLIP_CASES: FlipCase[] = [
  'brand, most cited: -> hallucinated and back',
  'brand, least cited: -> hallucinated and back',
  'baseline: brand, most cited: -> stale and back',
  'baseline: no subject owns it: -> hallucinated and back',
  'baseline: same status again (no change)',
];

interface Flip {
  case: FlipCase;
  url: string;
  runs: number;
  rep: number;
  direction: 'there' | 'back';
  from: string;
  to: string;
  ms: number;
  recorded: boolean;
  changed: boolean;
  /** subject_rollup rows written by the flip's transaction. */
  rollupRows: number;
  /** The brand's citations in the cell of no filter (grouping 15): before the flip, after, and the move expected. */
  brandBefore: number;
  brandAfter: number;
  expectedMove: number;
}

interface Totals {
  citations: number;
  citingRuns: number;
}

/** The brand's citations and citing runs in subject_rollup: the cell of no filter (grouping 15), and all cells kept. */
async function brandRollup(db: Kysely<DB>, projectId: string, brandId: string): Promise<{ none: Totals; allCells: Totals }> {
  const rows = await sql<{ none_c: number; none_r: number; all_c: number; all_r: number }>`
    select coalesce(sum(citations) filter (where grouping = 15), 0)::int8 as none_c, coalesce(sum(citing_runs) filter (where grouping = 15), 0)::int8 as none_r,
      coalesce(sum(citations), 0)::int8 as all_c, coalesce(sum(citing_runs), 0)::int8 as all_r
    from subject_rollup where project_id = ${projectId} and subject_id = ${brandId}`.execute(db);
  const r = rows.rows[0]!;
  return { none: { citations: Number(r.none_c), citingRuns: Number(r.none_r) }, allCells: { citations: Number(r.all_c), citingRuns: Number(r.all_r) } };
}

/** The same from the runs themselves: completed runs' pages the brand owns that are not hallucinated. */
async function brandFromRuns(db: Kysely<DB>, projectId: string, brandId: string): Promise<Totals> {
  const rows = await sql<{ c: number; r: number }>`
    select count(*)::int8 as c, count(distinct r.id)::int8 as r
    from runs r cross join lateral unnest(r.cited_url_ids) as u(id)
    join cited_urls c on c.project_id = r.project_id and c.id = u.id
    where r.project_id = ${projectId} and r.status = 'ok' and c.subject_id = ${brandId} and c.status <> 'hallucinated'`.execute(db);
  return { citations: Number(rows.rows[0]!.c), citingRuns: Number(rows.rows[0]!.r) };
}

/** Sets the URL's claim as claimUrls would (not timed) and returns the ClaimedUrl recordVerdict needs. */
async function claim(db: Kysely<DB>, projectId: string, id: string): Promise<ClaimedUrl> {
  const token = randomUUID();
  const row = await db
    .updateTable('cited_urls')
    .set({ verify_claim: token, verify_claimed_until: new Date(Date.now() + 5 * 60_000) })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .returning(['url', 'status', 'ever_verified', 'verified_url', 'retrieved', 'check_failures', 'first_failure_at'])
    .executeTakeFirstOrThrow();
  return {
    projectId,
    id,
    url: row.url,
    claim: token,
    status: row.status as CitationStatus,
    everVerified: row.ever_verified,
    verifiedUrl: row.verified_url,
    retrieved: row.retrieved,
    failures: row.check_failures,
    firstFailureAt: row.first_failure_at,
  };
}

async function flipOnce(db: Kysely<DB>, projectId: string, brandId: string, page: PageRow, to: CitationStatus, recordOn: Kysely<DB> = db): Promise<Omit<Flip, 'case' | 'rep' | 'direction'>> {
  const claimed = await claim(db, projectId, page.id);
  const before = await brandRollup(db, projectId, brandId);
  const now = new Date();
  const decision: Decision = {
    status: to,
    everVerified: claimed.everVerified || to === 'verified',
    verifiedUrl: claimed.verifiedUrl,
    failures: 0,
    firstFailureAt: null,
    nextCheckAt: new Date(now.getTime() + RECHECK_DAYS * DAY_MS),
    note: `bench: ${claimed.status} -> ${to}`,
  };
  const t = performance.now();
  const { recorded, changed } = await recordVerdict(recordOn, claimed, decision, now);
  const ms = performance.now() - t;
  // The rows the flip's transaction wrote: their xmin is its transaction id, as the cited_urls row's is.
  const touched = await sql<{ n: number }>`
    select count(*)::int as n from subject_rollup
    where project_id = ${projectId} and day = any(${page.days}::date[])
      and xmin = (select xmin from cited_urls where project_id = ${projectId} and id = ${page.id})`.execute(db);
  const after = await brandRollup(db, projectId, brandId);
  const crosses = page.subject_id === brandId && (claimed.status === 'hallucinated') !== (to === 'hallucinated');
  const expectedMove = !crosses ? 0 : to === 'hallucinated' ? -page.runs : page.runs;
  return {
    url: page.url,
    runs: page.runs,
    from: claimed.status,
    to,
    ms: round2(ms),
    recorded,
    changed,
    rollupRows: touched.rows[0]?.n ?? 0,
    brandBefore: before.none.citations,
    brandAfter: after.none.citations,
    expectedMove,
  };
}

interface FlipSummary {
  case: FlipCase;
  pages: number;
  flips: number;
  runsCiting: string;
  msMedian: number;
  msP90: number;
  msMax: number;
  rollupRowsMedian: number;
  rollupRowsMax: number;
  daysMedian: number;
  wrong: number;
}

interface ProfileStatement {
  statement: string;
  count: number;
  ms: number;
}

interface FlipsResult {
  target: { label: string; where: string };
  imported: ImportFigures;
  project: { runs: number; citedUrls: number; brandUrls: number; subjectRollupRows: number; brandRollupRows: number };
  /** The project's cited URLs in rounds of 100 as claims take them (hosts in turn among the oldest due): distinct hosts per round. */
  claimOrder: { hosts: number; rounds: number; hostsPerRoundMin: number; hostsPerRoundMedian: number; hostsPerRoundMax: number; roundsWithAtMost5Hosts: number };
  brandBefore: { rollup: { none: Totals; allCells: Totals }; fromRuns: Totals };
  brandAfter: { rollup: { none: Totals; allCells: Totals }; fromRuns: Totals };
  flips: Flip[];
  summary: FlipSummary[];
  profile: { page: string; runs: number; statements: { there: ProfileStatement[]; back: ProfileStatement[] }; ms: { there: number; back: number } } | undefined;
}

function statementShape(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().toLowerCase();
  if (t === 'begin' || t === 'commit' || t === 'rollback') return t;
  if (t.includes('pg_advisory_xact_lock')) return 'advisory lock of the project (lockProject)';
  if (t.startsWith('select id, engine_id')) return 'select runs citing the page (GIN on cited_url_ids)';
  if (t.startsWith('select id, subject_id, status from cited_urls')) return "select cited_urls: those runs' pages";
  const m = /^(insert into|select .*? from|update|delete from) "?([a-z_]+)"?/.exec(t);
  if (m) return `${m[1]!.startsWith('select') ? 'select' : m[1]} ${m[2]}${t.includes(' for update') ? ' for update' : ''}`;
  return t.slice(0, 50);
}

async function flipsPart(): Promise<FlipsResult> {
  const ds = dataset({ scale: settings.scale, endDay: settings.endDay });
  const setup: SetupOptions = { scale: settings.scale, keep: settings.keep, tag: 'verification-flips', scratchName: `sightline_bench_verification_flips_${process.pid}` };
  log(`\npart 2, flips: the analytics bench project at scale ${settings.scale}: ${ds.prompts} prompts x 7 engines x 3 locations x ${ds.days} days = ${ds.runs} runs${settings.keep ? ' (--keep)' : ''}`);
  const target = await openTarget(setup);
  log(`  ${target.label}: ${target.where}`);
  const db = target.database.db;
  try {
    const project = await findOrCreateProject(db, setup);
    const { projectId } = project;
    log(`  project ${projectId}${project.reused ? ' (reused)' : ''}`);
    const imported = await importDataset(db, projectId, ds, target.meter(), target, { importMaxS: 0, profileImport: false, log });
    if (!imported.skippedBecauseLoaded) log(`  imported ${imported.runsImported} runs in ${imported.seconds} s: ${imported.runsPerSecond} runs/s; CPU ${describeBusy(imported.busy)}`);
    const runs = await countRuns(db, projectId);
    if (runs !== ds.runs) throw new Error(`the project holds ${runs} runs, not the ${ds.runs} of the data set`);

    const brand = await db.selectFrom('cited_urls').select('subject_id').where('project_id', '=', projectId).where('subject_type', '=', 'brand').executeTakeFirst();
    if (!brand?.subject_id) throw new Error('no cited URL belongs to the brand');
    const brandId = brand.subject_id;
    const pages = (
      await sql<{ id: string; url: string; status: CitationStatus; subject_type: string | null; subject_id: string | null; runs: number; days: string[] }>`
        with cites as (
          select u.id, count(*)::int as runs, array_agg(distinct r.day::text) as days
          from runs r cross join lateral unnest(r.cited_url_ids) as u(id)
          where r.project_id = ${projectId} and r.status = 'ok' group by u.id
        )
        select c.id, c.url, c.status, c.subject_type, c.subject_id, cites.runs, cites.days
        from cited_urls c join cites on cites.id = c.id where c.project_id = ${projectId}`.execute(db)
    ).rows;
    const sizes = (
      await sql<{ cited: number; brand_urls: number; rollup: number; brand_rollup: number }>`
        select (select count(*)::int from cited_urls where project_id = ${projectId}) as cited,
          (select count(*)::int from cited_urls where project_id = ${projectId} and subject_id = ${brandId}) as brand_urls,
          (select count(*)::int from subject_rollup where project_id = ${projectId}) as rollup,
          (select count(*)::int from subject_rollup where project_id = ${projectId} and subject_id = ${brandId}) as brand_rollup`.execute(db)
    ).rows[0]!;
    const order = await db.selectFrom('cited_urls').select('host').where('project_id', '=', projectId).orderBy('verify_after').orderBy('id').execute();
    const perRound = claimRounds(order.map((r) => r.host), VERIFY_NOW_ROUND);
    const claimOrder = {
      hosts: new Set(order.map((r) => r.host)).size,
      rounds: perRound.length,
      hostsPerRoundMin: Math.min(...perRound),
      hostsPerRoundMedian: median(perRound),
      hostsPerRoundMax: Math.max(...perRound),
      roundsWithAtMost5Hosts: perRound.filter((n) => n <= 5).length,
    };
    log(
      `  its ${order.length} cited URLs (${claimOrder.hosts} hosts) in claim order (hosts taking turns among the oldest due), rounds of ${VERIFY_NOW_ROUND}: distinct hosts per round ` +
        `min ${claimOrder.hostsPerRoundMin}, median ${claimOrder.hostsPerRoundMedian}, max ${claimOrder.hostsPerRoundMax}; ${claimOrder.roundsWithAtMost5Hosts} of ${claimOrder.rounds} rounds have at most 5 hosts`,
    );
    const byRuns = (a: PageRow, b: PageRow) => b.runs - a.runs || a.id.localeCompare(b.id);
    // Pages with a conclusion to go back to: a verdict of 'unchecked' leaves the status as it is (record-verdict.ts).
    const settled = (p: PageRow) => p.status === 'verified' || p.status === 'stale' || p.status === 'broken';
    const brandPages = pages.filter((p) => p.subject_id === brandId && settled(p)).sort(byRuns);
    const most = brandPages.slice(0, settings.flipUrls);
    const least = brandPages.slice(-settings.flipFew).filter((p) => !most.includes(p)).reverse();
    const unowned = pages.filter((p) => p.subject_id === null && settled(p)).sort(byRuns).slice(0, 3);
    log(
      `  ${runs} runs; ${sizes.cited} cited URLs, ${sizes.brand_urls} of them the brand's; subject_rollup ${sizes.rollup} rows (${sizes.brand_rollup} the brand's); ` +
        `pages flipped: brand most cited ${most.map((p) => p.runs).join(', ')} runs, least cited ${least.map((p) => p.runs).join(', ')}, unowned ${unowned.map((p) => p.runs).join(', ')}`,
    );

    // What the flips change outside the rollups, put back at the end.
    const ids = [...new Set([...most, ...least, ...unowned].map((p) => p.id))];
    const saved = await db.selectFrom('cited_urls').selectAll().where('project_id', '=', projectId).where('id', 'in', ids).execute();
    const pendingBefore = new Set((await db.selectFrom('pending_detections').select('day').where('project_id', '=', projectId).execute()).map((r) => String(r.day)));
    const versionBefore = (await db.selectFrom('projects').select('data_version').where('id', '=', projectId).executeTakeFirstOrThrow()).data_version;

    const brandBefore = { rollup: await brandRollup(db, projectId, brandId), fromRuns: await brandFromRuns(db, projectId, brandId) };
    log(
      `  the brand's citations before: subject_rollup (no filter) ${brandBefore.rollup.none.citations} citations, ${brandBefore.rollup.none.citingRuns} citing runs; ` +
        `from the runs ${brandBefore.fromRuns.citations}, ${brandBefore.fromRuns.citingRuns}${brandBefore.rollup.none.citations === brandBefore.fromRuns.citations && brandBefore.rollup.none.citingRuns === brandBefore.fromRuns.citingRuns ? ' (equal)' : ' (DIFFERENT)'}`,
    );
    if (brandBefore.rollup.none.citations !== brandBefore.fromRuns.citations || brandBefore.rollup.none.citingRuns !== brandBefore.fromRuns.citingRuns) {
      problems.push(`before the flips, the brand's rollup (${JSON.stringify(brandBefore.rollup.none)}) differs from its runs (${JSON.stringify(brandBefore.fromRuns)})`);
    }

    const flips: Flip[] = [];
    let profile: FlipsResult['profile'];
    try {
      log(`flips (${settings.flipReps} round trips each; load average ${loadavg()}):`);
      for (let rep = 1; rep <= settings.flipReps; rep++) {
        for (const flipCase of FLIP_CASES) {
          const set = flipCase.startsWith('brand, least') ? least : flipCase.includes('no subject') ? unowned : most;
          for (const page of set) {
            const original = page.status;
            const there: CitationStatus = flipCase.includes('stale') ? (original === 'stale' ? 'verified' : 'stale') : flipCase.includes('same status') ? original : 'hallucinated';
            for (const [direction, to] of [['there', there], ['back', original]] as const) {
              const f = { case: flipCase, rep, direction, ...(await flipOnce(db, projectId, brandId, page, to)) };
              flips.push(f);
              const wrongMove = f.brandAfter - f.brandBefore !== f.expectedMove;
              const wrongFlag = !f.recorded || f.changed !== (f.from !== f.to);
              if (wrongMove || wrongFlag) {
                problems.push(`${flipCase}, ${page.url} ${f.from} -> ${f.to}: recorded ${f.recorded}, changed ${f.changed}; the brand's citations moved ${f.brandAfter - f.brandBefore}, expected ${f.expectedMove}`);
              }
            }
          }
        }
        log(`  round trip ${rep} done (${sinceStart()} s)`);
      }
      if (settings.profile && most[0]) {
        const page = most[0];
        const events: { sql: string; ms: number }[] = [];
        const logged = target.loggedDb((event: LogEvent) => events.push({ sql: event.query.sql, ms: event.queryDurationMillis }));
        try {
          const summarise = () => {
            const by = new Map<string, ProfileStatement>();
            for (const e of events.splice(0)) {
              const shape = statementShape(e.sql);
              const s = by.get(shape) ?? { statement: shape, count: 0, ms: 0 };
              by.set(shape, s);
              s.count++;
              s.ms += e.ms;
            }
            return [...by.values()].map((s) => ({ ...s, ms: round2(s.ms) })).sort((a, b) => b.ms - a.ms);
          };
          const there = await flipOnce(db, projectId, brandId, page, 'hallucinated', logged.db);
          const thereStatements = summarise();
          const back = await flipOnce(db, projectId, brandId, page, page.status, logged.db);
          const backStatements = summarise();
          profile = { page: page.url, runs: page.runs, statements: { there: thereStatements, back: backStatements }, ms: { there: there.ms, back: back.ms } };
          if (there.brandAfter - there.brandBefore !== there.expectedMove || back.brandAfter - back.brandBefore !== back.expectedMove) problems.push('the profiled flip moved the brand\'s citations wrongly');
        } finally {
          await logged.close();
        }
      }
    } finally {
      // Put back what the flips changed outside the rollups (the flips back restored the rollups).
      for (const row of saved) {
        await db
          .updateTable('cited_urls')
          .set({
            status: row.status,
            status_at: row.status_at,
            status_source: row.status_source,
            ever_verified: row.ever_verified,
            verified_url: row.verified_url,
            check_failures: row.check_failures,
            first_failure_at: row.first_failure_at,
            checked_at: row.checked_at,
            check_note: row.check_note,
            verify_after: row.verify_after,
            verify_claim: row.verify_claim,
            verify_claimed_until: row.verify_claimed_until,
          })
          .where('project_id', '=', projectId)
          .where('id', '=', row.id)
          .execute();
      }
      const added = (await db.selectFrom('pending_detections').select('day').where('project_id', '=', projectId).execute()).map((r) => String(r.day)).filter((d) => !pendingBefore.has(d));
      if (added.length > 0) await db.deleteFrom('pending_detections').where('project_id', '=', projectId).where('day', 'in', added).execute();
      await db.updateTable('projects').set({ data_version: versionBefore }).where('id', '=', projectId).execute();
    }

    const brandAfter = { rollup: await brandRollup(db, projectId, brandId), fromRuns: await brandFromRuns(db, projectId, brandId) };
    const same = (a: Totals, b: Totals) => a.citations === b.citations && a.citingRuns === b.citingRuns;
    log(
      `  the brand's citations after: subject_rollup (no filter) ${brandAfter.rollup.none.citations}, ${brandAfter.rollup.none.citingRuns} citing runs; all ${KEPT_GROUPINGS.size} cells kept ${brandAfter.rollup.allCells.citations} ` +
        `(before ${brandBefore.rollup.allCells.citations}); from the runs ${brandAfter.fromRuns.citations}, ${brandAfter.fromRuns.citingRuns}: ` +
        `${same(brandAfter.rollup.none, brandBefore.rollup.none) && same(brandAfter.rollup.allCells, brandBefore.rollup.allCells) && same(brandAfter.fromRuns, brandAfter.rollup.none) ? 'equal to before and to the runs' : 'DIFFERENT'}`,
    );
    if (!same(brandAfter.rollup.none, brandBefore.rollup.none) || !same(brandAfter.rollup.allCells, brandBefore.rollup.allCells)) problems.push(`after the flips back, the brand's rollup ${JSON.stringify(brandAfter.rollup)} differs from before ${JSON.stringify(brandBefore.rollup)}`);
    if (!same(brandAfter.fromRuns, brandAfter.rollup.none)) problems.push(`after the flips, the brand's rollup ${JSON.stringify(brandAfter.rollup.none)} differs from its runs ${JSON.stringify(brandAfter.fromRuns)}`);

    const pageDays = new Map(pages.map((p) => [p.url, p.days.length]));
    const summary: FlipSummary[] = FLIP_CASES.map((flipCase) => {
      const fs = flips.filter((f) => f.case === flipCase);
      const ms = fs.map((f) => f.ms);
      const urls = [...new Set(fs.map((f) => f.url))];
      return {
        case: flipCase,
        pages: urls.length,
        flips: fs.length,
        runsCiting: urls.map((u) => fs.find((f) => f.url === u)!.runs).join(', '),
        msMedian: round2(median(ms)),
        msP90: round2(percentile(ms, 0.9)),
        msMax: round2(Math.max(...ms)),
        rollupRowsMedian: median(fs.map((f) => f.rollupRows)),
        rollupRowsMax: Math.max(...fs.map((f) => f.rollupRows)),
        daysMedian: median(urls.map((u) => pageDays.get(u) ?? 0)),
        wrong: fs.filter((f) => f.brandAfter - f.brandBefore !== f.expectedMove || !f.recorded).length,
      };
    });
    return {
      target: { label: target.label, where: target.where },
      imported,
      project: { runs, citedUrls: sizes.cited, brandUrls: sizes.brand_urls, subjectRollupRows: sizes.rollup, brandRollupRows: sizes.brand_rollup },
      claimOrder,
      brandBefore,
      brandAfter,
      flips,
      summary,
      profile,
    };
  } finally {
    await target.cleanup();
  }
}

function flipsTable(f: FlipsResult): string {
  return table(
    ['case', 'pages', 'flips', 'completed runs citing each', 'days', 'ms/flip p50', 'p90', 'max', 'subject_rollup rows written p50', 'max', 'rollup wrong'],
    f.summary.map((s) => [s.case, s.pages, s.flips, s.runsCiting, s.daysMedian, s.msMedian, s.msP90, s.msMax, s.rollupRowsMedian, s.rollupRowsMax, s.wrong]),
  );
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const code = codeVersion();
  const loads: Record<string, string> = { start: loadavg() };
  log(`verification bench: ${code}; Node ${process.version}; --db=${settings.db}; load average ${loads.start}`);
  let throughput: ThroughputResult | undefined;
  let flips: FlipsResult | undefined;
  if (settings.parts.includes('throughput')) {
    throughput = await throughputPart();
    loads.afterThroughput = loadavg();
  }
  if (settings.parts.includes('flips')) {
    flips = await flipsPart();
    loads.afterFlips = loadavg();
  }
  loads.end = loadavg();

  log(`\n=== verification; ${code}; Node ${process.version}; --db=${settings.db}`);
  log(`load average (1/5/15 min): ${Object.entries(loads).map(([k, v]) => `${k} ${v}`).join('; ')}`);
  if (throughput) {
    log(
      `\nThroughput: ${throughput.target.label}; ${settings.hosts} hosts, every response after ${settings.delayMs} ms (robots.txt ${settings.robotsDelayMs} ms); ` +
        `verifyNow claims rounds of ${VERIFY_NOW_ROUND}. "ideal/s" = c / (page requests per URL x delay) (${throughput.ideal.map((i) => `${i.pageRequestsPerUrl} page requests/URL at c=${i.concurrency}`).join(', ')}). ` +
        `CPU per URL over the run: this process ("service"), the database${settings.db === 'postgres' ? " (its backends on the bench database; the server's shared processes apart)" : ' (the postmaster and all its children)'}, the sites (not the service's). Median of ${settings.rounds} round(s).\n`,
    );
    log(throughputTable(throughput));
  }
  if (flips) {
    log(
      `\nFlips: recordVerdict on one URL of the analytics bench project (${flips.target.label}; ${flips.project.runs} runs, ${flips.project.citedUrls} cited URLs, subject_rollup ${flips.project.subjectRollupRows} rows). ` +
        `Each flip is a separate transaction; "rows written" = subject_rollup rows whose xmin is the flip's transaction.\n`,
    );
    log(flipsTable(flips));
    if (flips.profile) {
      const p = flips.profile;
      log(`\nOne round trip of the most cited brand page (${p.runs} completed runs) through a statement-logging Kysely: ${p.ms.there} ms there, ${p.ms.back} ms back (statement time, summed):\n`);
      const shapes = [...new Set([...p.statements.there, ...p.statements.back].map((s) => s.statement))];
      log(
        table(
          ['statement', 'count', 'ms there', 'ms back'],
          shapes.map((s) => {
            const a = p.statements.there.find((x) => x.statement === s);
            const b = p.statements.back.find((x) => x.statement === s);
            return [s, a?.count ?? b?.count ?? 0, a?.ms ?? 0, b?.ms ?? 0];
          }),
        ),
      );
    }
  }
  log(`\nwhole run: ${sinceStart()} s`);
  writeJsonOut({ settings, code, node: process.version, loads, throughput, flips, problems });
  if (problems.length > 0) {
    console.error(`\nFAILED: ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    process.exitCode = 1;
  }
}

await main();
