/**
 * The read paths under load, for the targets of the issue "A million runs a day per instance":
 * throughput and latency of the analytics reads on the analytics bench project (lib/analytics-data.ts)
 * with the response cache hit and missed, `GET /api/v1/projects`, and the timeseries while a CLI
 * import runs, each beside a bare Fastify route measured in the same run. See bench/README.md
 * ("Reads under load").
 *
 *   node_modules/node/bin/node bench/reads.ts --scale=0.1                          # embedded PostgreSQL: 1-2 and 3
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
 *     node_modules/node/bin/node bench/reads.ts --db=postgres --scale=1 --keep     # the server: 1-2 only
 *   node_modules/node/bin/node bench/reads.ts --during-import --scale=0.1          # 3 only
 *
 * 1. Setup (as bench/analytics.ts, lib/analytics-setup.ts): the embedded PostgreSQL in a fresh data
 *    directory `.tmp/bench-reads-<pid>` (`--db=embedded`, the default), or a scratch database
 *    `sightline_bench_reads_<pid>` on the loopback server of DATABASE_URL (`--db=postgres`); the
 *    analytics bench project imported with `importRuns` at `--scale`. With `--keep`, the database
 *    `sightline_bench_analytics_s<scale>` or the directory `.tmp/bench-analytics-embedded-s<scale>`,
 *    shared with analytics.ts: reused when it already holds every run, and kept. A `read` key with a
 *    limit of 1,000,000 a minute (`createApiKey`).
 * 2. The service in this process (`buildApp` from src/app.ts, no logger, its clock pinned to noon of
 *    the last day of data) and a bare Fastify (lib/bare-server.ts), both listening on 127.0.0.1:0. The
 *    load generator (lib/load.ts) is its own process: N keep-alive connections, a warm-up, then a
 *    measurement bounded by time and count. `--rounds` rounds; each round measures, in order:
 *    a. `GET /bare` and the same URL over and over (response cache hits): timeseries 28 days and
 *       ranking 28 days (`from`/`to` = the last 28 days of data), 10 connections;
 *    b. the same two reads with cold URLs: every request a URL not requested before in the run (a
 *       28-day window starting on each day of the data, with engine/topic/location/branded filters),
 *       so the cache (keyed by project, data version and filters) always misses; and 50 such URLs
 *       rotating (mostly hits);
 *    c. `GET /api/v1/projects`, 10 connections;
 *    d. `GET /bare` and citations 28 days, 1 connection, the same URL repeated and cold URLs.
 *    Before the rounds: one request of each read (200 and a summary of its body), a probe that a cold
 *    URL is computed and a repeated one is not (statements counted through a logging Kysely on the
 *    same database, ETags, and first-against-repeat times over HTTP), and `--prewarm-ms` of
 *    unmeasured load on each read.
 * 3. During an import (`--db=embedded` or `--during-import`): `node src/server.ts` on the embedded
 *    database in a fresh `SIGHTLINE_DATA_DIR` (`.tmp/bench-reads-import-<pid>/data`, `SIGHTLINE_DEMO=0`,
 *    `LOG_LEVEL` --log-level), the bench project made in it, the data set (`--import-days` days at
 *    `--scale`) written as JSON Lines under the same directory, and `sightline runs import --project
 *    ID FILE --json` (src/cli/main.ts) run as its own process. While it runs, timeseries 28 days
 *    (the first 28 days of the data: filled once 28/90 of the import has landed) at 10 connections,
 *    the same URL and cold URLs in turn, measurement after measurement until the import ends; then,
 *    with no import running, the same reads `--rounds` times, and `GET /bare`.
 *
 * CPU during every measurement (lib/contention.ts, /proc): the service (this process in 2, the
 * server's in 3), its database (the embedded postmaster and its children; on the server, its
 * backends on the bench database), the import process, the load generator (its own figure), and
 * other work (the rest of the machine).
 *
 * Settings (argument, else BENCH_* variable): --db (embedded | postgres), --scale (0.1), --keep,
 * --end-day (2026-11-21), --analyze (ANALYZE before measuring), --connections (10), --rounds (3),
 * --duration-ms (5000) and --requests (1000000): each measurement stops at whichever comes first;
 * --single-duration-ms (10000): the same for the 1-connection measurements; --warmup-ms (1000),
 * --warmup-requests (2000); --prewarm-ms (2000); --during-import (only part 3); --skip-import (not
 * part 3); --import-days (90); --import-timeout-s (7200); --log-level (info); --baseline-json=FILE (a
 * scale-0.1 run's --json-out, for the citations ratio); --json-out=FILE.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { buildApp } from '../src/app.ts';
import { addDays } from '../src/analytics/filters.ts';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { openEmbedded, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { DB } from '../src/db/types.ts';
import { dataset, LOCATIONS, type Dataset } from './lib/analytics-data.ts';
import { countRuns, findOrCreateProject, importDataset, openEmbeddedTarget, openPostgresTarget, type ImportFigures, type Project, type SetupOptions, type Target } from './lib/analytics-setup.ts';
import { buildBareApp } from './lib/bare-server.ts';
import { benchDataDir, childrenOf, postmasterPid, removeDataDir, stopLeftoverPostmaster } from './lib/cluster.ts';
import { flagArg, freePort, ROOT, round1, runLoadProcess, setting, stop, stringArg, table, writeJsonOut } from './lib/common.ts';
import { getJson, summarise } from './lib/responses.ts';
import { cpuOf, cpuSnapshot, cpuSplit, describeBusy } from './lib/contention.ts';
import type { LoadResult, LoadSpec } from './lib/load.ts';
import { codeVersion, loadavg, median } from './lib/scratch-db.ts';
import { logTail, SERVER_SCRIPT, serviceEnv, startAndWait, warningsIn } from './startup.ts';

const argv = process.argv.slice(2);
const flag = (name: string) => flagArg(name, argv);

const settings = {
  db: (stringArg('db') ?? process.env.BENCH_DB ?? 'embedded').trim(),
  scale: setting('scale', 0.1),
  keep: flag('keep'),
  endDay: stringArg('end-day') ?? '2026-11-21',
  analyze: flag('analyze'),
  connections: Math.max(1, Math.round(setting('connections', 10))),
  rounds: Math.max(1, Math.round(setting('rounds', 3))),
  durationMs: setting('duration-ms', 5_000),
  singleDurationMs: setting('single-duration-ms', 10_000),
  requests: Math.max(1, Math.round(setting('requests', 1_000_000))),
  warmupMs: setting('warmup-ms', 1_000),
  warmupRequests: Math.round(setting('warmup-requests', 2_000)),
  prewarmMs: setting('prewarm-ms', 2_000),
  duringImportOnly: flag('during-import'),
  skipImport: flag('skip-import'),
  importDays: Math.max(28, Math.round(setting('import-days', 90))),
  importTimeoutS: setting('import-timeout-s', 7_200),
  logLevel: stringArg('log-level') ?? process.env.BENCH_LOG_LEVEL ?? 'info',
  baselineJson: stringArg('baseline-json'),
};
if (settings.db !== 'embedded' && settings.db !== 'postgres') throw new Error(`--db must be embedded or postgres, got "${settings.db}"`);
if (!(settings.scale > 0 && settings.scale <= 1)) throw new Error(`--scale must be above 0 and at most 1, got ${settings.scale}`);
if (settings.duringImportOnly && settings.skipImport) throw new Error('--during-import and --skip-import exclude each other');

/** The issue's targets. */
const TARGETS = {
  /** Same-URL timeseries and ranking, 10 connections: at least this share of bare req/s. */
  hitShare: 0.15,
  /** Cold timeseries and ranking, 10 connections. */
  coldShare: 0.04,
  /** GET /api/v1/projects, 10 connections. */
  projectsShare: 0.2,
  /** Citations 28 days, one connection, at scale 1. */
  citationsP99Ms: 25,
  /** Citations p99 at this scale against the scale-0.1 figure. */
  citationsGrowth: 1.5,
  /** Timeseries p99 while an import runs. */
  duringImportP99Ms: 100,
};

const log = (line: string) => console.log(line);
const t0 = performance.now();
const sinceStart = () => round1((performance.now() - t0) / 1000);
const round2 = (n: number) => Math.round(n * 100) / 100;
const pct = (n: number) => `${round1(n * 100)}%`;
/** Paths handed to the load generator per cold measurement: more than it can take at this rate. */
const MAX_COLD_RATE = 4_000;

// ---------------------------------------------------------------------------------------------
// URLs

/** The dimensions a read can be filtered by, with the values this project has. */
interface Dimensions {
  engines: string[];
  topics: string[];
  locations: string[];
  /** Competitor ids, for timeseries of another subject (part 3 only: more distinct URLs). */
  competitors: string[];
}

type Dim = 'engine' | 'topic' | 'location' | 'branded';
/** Filter shapes, in the order the cold URLs take them in turn. */
const SHAPES: Dim[][] = [[], ['engine'], ['location'], ['branded'], ['topic'], ['engine', 'branded'], ['engine', 'location'], ['topic', 'branded'], ['location', 'branded'], ['engine', 'topic'], ['engine', 'location', 'branded'], ['engine', 'topic', 'location', 'branded']];

interface ColdQuery {
  query: string;
  shape: string;
}

/**
 * Distinct query strings for 28-day windows: each shape of filters in turn (one of each shape,
 * then the next of each, a shape dropping out when its combinations run out), each shape's
 * combinations taken window first (every start day), then filter values, then subject. No two
 * are alike, so no two resolve to the same cache key.
 */
function coldQueries(firstDay: string, endDay: string, dims: Dimensions, withSubjects: boolean): ColdQuery[] {
  const starts: string[] = [];
  for (let day = firstDay; addDays(day, 27) <= endDay; day = addDays(day, 1)) starts.push(day);
  const valuesOf: Record<Dim, string[]> = {
    engine: dims.engines.map((id) => `engineId=${id}`),
    topic: dims.topics.map((id) => `topicId=${id}`),
    location: dims.locations.map((l) => `location=${encodeURIComponent(l)}`),
    branded: ['branded=true', 'branded=false'],
  };
  const subjects = withSubjects ? ['', ...dims.competitors.map((id) => `&subjectType=competitor&subjectId=${id}`)] : [''];
  const perShape: ColdQuery[][] = [];
  for (const shape of SHAPES) {
    let combos: string[][] = [[]];
    for (const dim of shape) combos = combos.flatMap((c) => valuesOf[dim].map((v) => [...c, v]));
    if (combos.length === 0) continue;
    const name = shape.length === 0 ? 'none' : shape.join('+');
    const out: ColdQuery[] = [];
    for (const subject of subjects) {
      for (const combo of combos) {
        for (const from of starts) out.push({ query: [`from=${from}`, `to=${addDays(from, 27)}`, ...combo].join('&') + subject, shape: name });
      }
    }
    perShape.push(out);
  }
  const all: ColdQuery[] = [];
  const longest = Math.max(...perShape.map((s) => s.length));
  for (let i = 0; i < longest; i++) for (const s of perShape) if (i < s.length) all.push(s[i]!);
  return all;
}

/** One read's cold URLs, handed out in order so none is requested twice in the run. */
class ColdPool {
  readonly #queries: ColdQuery[];
  readonly #path: string;
  #next = 0;
  /** Times the pool ran out and started again from its first URL (part 3 only). */
  wraps = 0;
  constructor(path: string, queries: ColdQuery[]) {
    this.#path = path;
    this.#queries = queries;
  }
  get size(): number {
    return this.#queries.length;
  }
  get used(): number {
    return this.#next + this.wraps * this.#queries.length;
  }
  /** Where the next path is taken from. */
  get cursor(): number {
    return this.#next;
  }
  /** The filter shape of the path `offset` places after `from` (wrapping). */
  shapeAt(from: number, offset: number): string {
    return this.#queries[(from + offset) % this.#queries.length]!.shape;
  }
  /** The next `n` paths (fewer if the pool runs out, unless `wrap`), not yet taken. */
  peek(n: number, wrap = false): string[] {
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      let at = this.#next + i;
      if (at >= this.#queries.length) {
        if (!wrap) break;
        at %= this.#queries.length;
      }
      out.push(`${this.#path}?${this.#queries[at]!.query}`);
    }
    return out;
  }
  /** Marks `n` paths as taken; returns how many of each shape they were. */
  advance(n: number): Record<string, number> {
    const shapes: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      if (this.#next >= this.#queries.length) {
        this.#next = 0;
        this.wraps++;
      }
      const shape = this.#queries[this.#next++]!.shape;
      shapes[shape] = (shapes[shape] ?? 0) + 1;
    }
    return shapes;
  }
  take(n: number): string[] {
    const out = this.peek(n);
    this.advance(out.length);
    return out;
  }
}

async function dimensionsOf(db: Kysely<DB>, project: Project): Promise<Dimensions> {
  const engines = (await db.selectFrom('engines').select('id').orderBy('key').execute()).map((e) => e.id);
  const topics = (await db.selectFrom('topics').select('id').where('project_id', '=', project.projectId).orderBy('name').execute()).map((t) => t.id);
  return { engines, topics, locations: [...LOCATIONS], competitors: project.competitorIds };
}

// ---------------------------------------------------------------------------------------------
// Measuring

/** Where the load goes, and whose CPU counts as the service's and the database's. */
interface Service {
  origin: string;
  headers: Record<string, string>;
  /** The server process; undefined: this process (the app runs in the bench). */
  pid: number | undefined;
  databasePids: () => number[];
}

interface Cpu {
  seconds: number;
  machineCores: number;
  serviceCores: number;
  databaseCores: number;
  importCores: number;
  loadCores: number;
  otherCores: number;
}

export interface Measurement {
  phase: 'reads' | 'during import' | 'after import';
  round: number;
  read: string;
  urls: string;
  connections: number;
  result: Omit<LoadResult, 'latencies'>;
  cpu: Cpu;
  /** Seconds since the bench started, around the whole load process (warm-up included). */
  startS: number;
  endS: number;
  /** Cold URLs: how many of each filter shape were requested. */
  shapes?: Record<string, number>;
  /** Part 3: the project's runs and data version at the start and end of the measurement. */
  project?: { runsBefore: number; runsAfter: number; versionBefore: number; versionAfter: number };
  /** Part 3: whether the import ended before the measurement did. */
  straddlesImportEnd?: boolean;
}

interface Job {
  phase: Measurement['phase'];
  round: number;
  read: string;
  urls: string;
  connections: number;
  /** The one path, or a list (`cycle` false: cold). */
  path?: string;
  paths?: { file: string; cycle: boolean };
  durationMs?: number;
  keepLatencies?: boolean;
  importPid?: number;
}

let workDir = '';
let pathFiles = 0;

/** Writes paths to a file for the load generator (a list too long for its command line). */
function pathsFile(paths: string[]): string {
  const file = join(workDir, `paths-${++pathFiles}.txt`);
  writeFileSync(file, `${paths.join('\n')}\n`);
  return file;
}

interface Measured {
  m: Measurement;
  latencies: number[];
  /** With a list of paths: the index of each latency's path in it. */
  latencyPaths: number[];
  /** Cold measurements: the filter shape of each latency's URL. */
  latencyShapes?: string[];
}

async function measure(service: Service, job: Job): Promise<Measured> {
  const spec: LoadSpec = {
    url: `${service.origin}${job.path ?? '/'}`,
    headers: service.headers,
    concurrency: job.connections,
    requests: settings.requests,
    durationMs: job.durationMs ?? settings.durationMs,
    warmupMs: settings.warmupMs,
    warmupRequests: settings.warmupRequests,
  };
  if (job.paths) {
    spec.pathsFile = job.paths.file;
    spec.cycle = job.paths.cycle;
  }
  if (job.keepLatencies) spec.keepLatencies = true;
  const pids = () => [...(service.pid === undefined ? [] : [service.pid]), ...(job.importPid === undefined ? [] : [job.importPid]), ...service.databasePids()];
  const startS = sinceStart();
  const before = cpuSnapshot(pids());
  const selfBefore = process.cpuUsage();
  const full = await runLoadProcess(spec);
  const self = process.cpuUsage(selfBefore);
  const dbPids = service.databasePids();
  const after = cpuSnapshot(pids());
  const endS = sinceStart();
  const split = cpuSplit(before, after);
  const seconds = (after.at - before.at) / 1000;
  const serviceCores = service.pid === undefined ? round2((self.user + self.system) / 1e6 / seconds) : cpuOf(before, after, [service.pid]);
  const databaseCores = cpuOf(before, after, dbPids);
  const importCores = job.importPid === undefined ? 0 : cpuOf(before, after, [job.importPid]);
  const loadCores = round2(full.cpuMs / 1000 / seconds);
  const cpu: Cpu = {
    seconds: split.seconds,
    machineCores: split.machineCores,
    serviceCores,
    databaseCores,
    importCores,
    loadCores,
    otherCores: round2(Math.max(0, split.machineCores - serviceCores - databaseCores - importCores - loadCores)),
  };
  const { latencies = [], latencyPaths = [], ...result } = full;
  const m: Measurement = { phase: job.phase, round: job.round, read: job.read, urls: job.urls, connections: job.connections, result, cpu, startS, endS };
  const failed = result.non200 + result.errors;
  log(
    `  ${job.phase === 'reads' ? `round ${job.round}` : job.phase.padEnd(13)}  ${job.read.padEnd(24)} ${job.urls.padEnd(20)} ${String(job.connections).padStart(3)} conn ` +
      `${String(result.rps).padStart(6)} req/s  p50 ${String(result.p50Ms).padStart(7)} ms  p99 ${String(result.p99Ms).padStart(7)} ms  n ${String(result.requests).padStart(6)}  ` +
      `cores: service ${cpu.serviceCores}, db ${cpu.databaseCores}${job.importPid === undefined ? '' : `, import ${cpu.importCores}`}, load ${cpu.loadCores}, other ${cpu.otherCores}` +
      `${failed ? `  FAILED ${failed} (${JSON.stringify(result.statuses)}; ${result.firstError ?? ''})` : ''}${result.exhausted ? '  (cold URLs ran out: stopped early)' : ''}`,
  );
  return { m, latencies, latencyPaths };
}

/** Cold latencies by phase, read, connections and filter shape, pooled over measurements. */
const shapeLatencies = new Map<string, { phase: Measurement['phase']; read: string; connections: number; shape: string; latencies: number[] }>();

function recordShapes({ m, latencies, latencyShapes = [] }: Measured): void {
  latencyShapes.forEach((shape, i) => {
    const key = `${m.phase}|${m.read}|${m.connections}|${shape}`;
    let entry = shapeLatencies.get(key);
    if (!entry) shapeLatencies.set(key, (entry = { phase: m.phase, read: m.read, connections: m.connections, shape, latencies: [] }));
    entry.latencies.push(latencies[i]!);
  });
}

interface ShapeRow {
  phase: Measurement['phase'];
  read: string;
  connections: number;
  shape: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const PHASES: Measurement['phase'][] = ['reads', 'during import', 'after import'];
const shapeOrder = (name: string) => SHAPES.findIndex((s) => (s.length === 0 ? 'none' : s.join('+')) === name);

function shapeRows(): ShapeRow[] {
  const entries = [...shapeLatencies.values()].sort(
    (a, b) => PHASES.indexOf(a.phase) - PHASES.indexOf(b.phase) || (a.read < b.read ? 1 : a.read > b.read ? -1 : 0) || shapeOrder(a.shape) - shapeOrder(b.shape),
  );
  return entries.map((e) => ({
    phase: e.phase,
    read: e.read,
    connections: e.connections,
    shape: e.shape,
    requests: e.latencies.length,
    p50Ms: round2(percentileOf(e.latencies, 50)),
    p99Ms: round2(percentileOf(e.latencies, 99)),
    maxMs: round2(percentileOf(e.latencies, 100)),
  }));
}

/** A cold measurement: hands the load generator enough fresh paths, then marks those it took. */
async function measureCold(service: Service, pool: ColdPool, job: Omit<Job, 'paths'>, wrap = false): Promise<Measured> {
  const rate = job.connections === 1 ? 1_000 : MAX_COLD_RATE;
  const want = Math.ceil(((settings.warmupMs + (job.durationMs ?? settings.durationMs)) / 1000) * rate) + 100;
  const paths = pool.peek(want, wrap);
  if (paths.length === 0) throw new Error(`${job.read}: no cold URLs left (${pool.size} in the pool)`);
  const file = pathsFile(paths);
  const from = pool.cursor;
  try {
    const out = await measure(service, { ...job, paths: { file, cycle: false }, keepLatencies: true });
    out.m.shapes = pool.advance(out.m.result.pathsTaken ?? 0);
    out.latencyShapes = out.latencyPaths.map((index) => pool.shapeAt(from, index));
    return out;
  } finally {
    rmSync(file, { force: true });
  }
}

interface Combined {
  phase: Measurement['phase'];
  read: string;
  urls: string;
  connections: number;
  rounds: Measurement[];
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  cpu: Cpu;
}

/** The rounds of one row: median req/s, p50, p99; failures summed; CPU averaged. */
function combine(measurements: Measurement[]): Combined[] {
  const groups = new Map<string, Measurement[]>();
  for (const m of measurements) {
    const key = `${m.phase}|${m.read}|${m.urls}|${m.connections}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((rounds) => {
    const first = rounds[0]!;
    const avg = (f: (c: Cpu) => number) => round2(rounds.reduce((a, m) => a + f(m.cpu), 0) / rounds.length);
    return {
      phase: first.phase,
      read: first.read,
      urls: first.urls,
      connections: first.connections,
      rounds,
      requests: rounds.reduce((a, m) => a + m.result.requests, 0),
      rps: Math.round(median(rounds.map((m) => m.result.rps))),
      p50Ms: round2(median(rounds.map((m) => m.result.p50Ms))),
      p99Ms: round2(median(rounds.map((m) => m.result.p99Ms))),
      failed: rounds.reduce((a, m) => a + m.result.non200 + m.result.errors, 0),
      cpu: {
        seconds: round1(rounds.reduce((a, m) => a + m.cpu.seconds, 0)),
        machineCores: avg((c) => c.machineCores),
        serviceCores: avg((c) => c.serviceCores),
        databaseCores: avg((c) => c.databaseCores),
        importCores: avg((c) => c.importCores),
        loadCores: avg((c) => c.loadCores),
        otherCores: avg((c) => c.otherCores),
      },
    };
  });
}

/** The nearest-rank percentile of unsorted values. */
function percentileOf(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

// ---------------------------------------------------------------------------------------------
// Checking what is measured

interface ProbeRow {
  read: string;
  url: string;
  firstStatements: number;
  repeatStatements: number;
  firstMs: number;
  repeatMs: number;
  sameEtag: boolean;
}

/**
 * Whether a cold URL is computed and a repeated one is not: a second app on a statement-logging
 * Kysely (same database, its own response cache) answers each URL twice; the statements each
 * request made are counted (the key lookup is one; computing a read takes several).
 */
async function probeStatements(target: Target, reads: { read: string; path: string; pool?: ColdPool }[], headers: Record<string, string>): Promise<ProbeRow[]> {
  let statements = 0;
  const logged = target.loggedDb((event) => {
    if (event.level === 'query') statements++;
  });
  const app = await buildApp({ db: logged.db, now: pinnedNow });
  await app.ready();
  const rows: ProbeRow[] = [];
  try {
    for (const r of reads) {
      const urls = r.pool ? r.pool.take(3) : [r.path];
      for (const url of urls) {
        const one = async () => {
          statements = 0;
          const started = performance.now();
          const res = await app.inject({ method: 'GET', url, headers });
          if (res.statusCode !== 200) throw new Error(`probe: GET ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
          return { n: statements, ms: round2(performance.now() - started), etag: String(res.headers.etag ?? '') };
        };
        const first = await one();
        const repeat = await one();
        rows.push({ read: r.read, url, firstStatements: first.n, repeatStatements: repeat.n, firstMs: first.ms, repeatMs: repeat.ms, sameEtag: first.etag === repeat.etag && first.etag !== '' });
      }
    }
  } finally {
    await app.close();
    await logged.close();
  }
  return rows;
}

interface TimingProbe {
  read: string;
  urls: number;
  firstMs: number[];
  repeatMs: number[];
  distinctEtags: number;
}

/** Over HTTP on the measured service: cold URLs requested twice in a row, first against repeat. */
async function probeTimes(service: Service, read: string, pool: ColdPool, n = 5, wrap = false): Promise<TimingProbe> {
  const paths = pool.peek(n, wrap);
  pool.advance(paths.length);
  const firstMs: number[] = [];
  const repeatMs: number[] = [];
  const etags = new Set<string>();
  for (const path of paths) {
    const first = await getJson(`${service.origin}${path}`, service.headers);
    const repeat = await getJson(`${service.origin}${path}`, service.headers);
    firstMs.push(first.ms);
    repeatMs.push(repeat.ms);
    if (first.etag) etags.add(first.etag);
    if (first.etag !== repeat.etag) throw new Error(`probe: ${path} changed its ETag between two requests (${first.etag}, ${repeat.etag})`);
  }
  return { read, urls: paths.length, firstMs, repeatMs, distinctEtags: etags.size };
}

const describeProbe = (p: TimingProbe) =>
  `${p.read}: ${p.urls} cold URLs, first request ${median(p.firstMs)} ms (median; ${p.firstMs.join(', ')}), repeated ${median(p.repeatMs)} ms (${p.repeatMs.join(', ')}); ${p.distinctEtags} distinct ETags`;

// ---------------------------------------------------------------------------------------------
// Parts 1 and 2: the reads on the bench project, the service in this process

const pinnedNow = () => new Date(`${settings.endDay}T12:00:00Z`);

interface ReadsResult {
  target: { label: string; where: string };
  imported: ImportFigures;
  dataset: { runs: number; firstDay: string; endDay: string; prompts: number };
  coldPoolSize: Record<string, number>;
  probe: { statements: ProbeRow[]; times: TimingProbe[] };
  measurements: Measurement[];
  combined: Combined[];
}

async function readsPart(): Promise<ReadsResult> {
  const ds = dataset({ scale: settings.scale, endDay: settings.endDay });
  const setup: SetupOptions = { scale: settings.scale, keep: settings.keep, tag: 'reads', scratchName: `sightline_bench_reads_${process.pid}` };
  log(`reads: ${settings.db}, scale ${settings.scale}: ${ds.prompts} prompts x 7 engines x 3 locations x ${ds.days} days (${ds.firstDay} to ${ds.endDay}) = ${ds.runs} runs`);
  const target = settings.db === 'postgres' ? await openPostgresTarget(setup) : await openEmbeddedTarget(setup);
  log(`  ${target.label}: ${target.where}`);
  let app: FastifyInstance | undefined;
  let bare: FastifyInstance | undefined;
  try {
    const db = target.database.db;
    await migrateToLatest(db);
    const project = await findOrCreateProject(db, setup);
    log(`  project ${project.projectId}${project.reused ? ' (reused)' : ''}`);
    log('import (importRuns, as analytics.ts):');
    const imported = await importDataset(db, project.projectId, ds, target.meter(), target, { importMaxS: 0, profileImport: false, log });
    if (!imported.skippedBecauseLoaded) log(`  imported ${imported.runsImported} runs in ${imported.seconds} s: ${imported.runsPerSecond} runs/s; CPU ${describeBusy(imported.busy)}`);
    const runs = await countRuns(db, project.projectId);
    if (runs !== ds.runs) throw new Error(`the project holds ${runs} runs, not the ${ds.runs} of the data set`);
    if (settings.analyze) {
      const a0 = performance.now();
      await sql`analyze`.execute(db);
      log(`  ANALYZE took ${((performance.now() - a0) / 1000).toFixed(1)} s`);
    }

    const key = await createApiKey(db, { workspaceId: project.workspaceId, scopes: ['read'], rateLimit: 1_000_000, name: 'reads bench' });
    const headers = { authorization: `Bearer ${key.key}` };
    app = await buildApp({ db, now: pinnedNow });
    bare = buildBareApp();
    const appOrigin = await app.listen({ port: 0, host: '127.0.0.1' });
    const bareOrigin = await bare.listen({ port: 0, host: '127.0.0.1' });
    const service: Service = { origin: appOrigin, headers, pid: undefined, databasePids: () => target.databasePids() };
    const bareService: Service = { origin: bareOrigin, headers: {}, pid: undefined, databasePids: () => [] };

    const p = `/api/v1/projects/${project.projectId}`;
    const window28 = `from=${addDays(ds.endDay, -27)}&to=${ds.endDay}`;
    const same = {
      timeseries: `${p}/visibility/timeseries?${window28}`,
      ranking: `${p}/visibility/ranking?${window28}`,
      citations: `${p}/citations?${window28}`,
      projects: '/api/v1/projects',
    };
    const dims = await dimensionsOf(db, project);
    const queries = coldQueries(ds.firstDay, ds.endDay, dims, false);
    const pools = {
      timeseries: new ColdPool(`${p}/visibility/timeseries`, queries),
      ranking: new ColdPool(`${p}/visibility/ranking`, queries),
      citations: new ColdPool(`${p}/citations`, queries),
    };
    log(`  cold URLs: ${queries.length} per read (${dims.engines.length} engines, ${dims.topics.length} topics, ${dims.locations.length} locations, branded or not; 28-day windows starting on each of ${daysOfStarts(ds.firstDay, ds.endDay)} days)`);

    // One request of each read first: a benchmark of error responses would be worthless.
    for (const [name, path] of Object.entries(same)) log(`  ${name} (${path}): ${summarise((await getJson(`${appOrigin}${path}`, headers)).body)}`);

    // Cold URLs are computed, repeated ones are not.
    log('probe: is a cold URL computed? (a second app on a statement-logging Kysely, each URL twice)');
    const statements = await probeStatements(
      target,
      [
        { read: 'timeseries 28 d', path: same.timeseries, pool: pools.timeseries },
        { read: 'ranking 28 d', path: same.ranking, pool: pools.ranking },
        { read: 'citations 28 d', path: same.citations, pool: pools.citations },
        { read: 'timeseries 28 d (same URL)', path: same.timeseries },
      ],
      headers,
    );
    for (const r of statements) log(`  ${r.read.padEnd(28)} first: ${r.firstStatements} statements, ${r.firstMs} ms; repeat: ${r.repeatStatements} statements, ${r.repeatMs} ms; same ETag: ${r.sameEtag}  ${r.url.slice(p.length)}`);
    const badProbe = statements.filter((r) => !r.read.includes('same URL') && (r.firstStatements <= r.repeatStatements || !r.sameEtag));
    if (badProbe.length > 0) log(`  WARNING: ${badProbe.length} cold URL(s) made no more statements than their repeat: the cache did not miss as expected`);
    const times = [await probeTimes(service, 'timeseries 28 d', pools.timeseries), await probeTimes(service, 'ranking 28 d', pools.ranking), await probeTimes(service, 'citations 28 d', pools.citations)];
    for (const t of times) log(`  over HTTP, ${describeProbe(t)}`);

    // 50 cold URLs, reused: the "50 windows rotating" rows.
    const rotating = { timeseries: pathsFile(pools.timeseries.take(50)), ranking: pathsFile(pools.ranking.take(50)) };

    if (settings.prewarmMs > 0) {
      log(`pre-warming: each same-URL read for ${settings.prewarmMs / 1000} s at ${settings.connections} connections (not measured)`);
      for (const path of [same.timeseries, same.ranking, same.projects, same.citations]) {
        await runLoadProcess({ url: `${appOrigin}${path}`, headers, concurrency: settings.connections, requests: settings.requests, durationMs: settings.prewarmMs, warmupMs: 0, warmupRequests: 0 });
      }
    }

    log(`reads (load average ${loadavg()}):`);
    const c = settings.connections;
    const measurements: Measurement[] = [];
    const add = async (p: Promise<Measured>) => {
      const out = await p;
      recordShapes(out);
      measurements.push(out.m);
    };
    for (let round = 1; round <= settings.rounds; round++) {
      const base = { phase: 'reads' as const, round };
      await add(measure(bareService, { ...base, read: 'GET /bare', urls: 'same URL', connections: c, path: '/bare' }));
      await add(measure(service, { ...base, read: 'timeseries 28 d', urls: 'same URL', connections: c, path: same.timeseries }));
      await add(measure(service, { ...base, read: 'ranking 28 d', urls: 'same URL', connections: c, path: same.ranking }));
      await add(measureCold(service, pools.timeseries, { ...base, read: 'timeseries 28 d', urls: 'cold', connections: c }));
      await add(measureCold(service, pools.ranking, { ...base, read: 'ranking 28 d', urls: 'cold', connections: c }));
      await add(measure(service, { ...base, read: 'timeseries 28 d', urls: '50 windows rotating', connections: c, paths: { file: rotating.timeseries, cycle: true } }));
      await add(measure(service, { ...base, read: 'ranking 28 d', urls: '50 windows rotating', connections: c, paths: { file: rotating.ranking, cycle: true } }));
      await add(measure(service, { ...base, read: 'GET /api/v1/projects', urls: 'same URL', connections: c, path: same.projects }));
      const single = { ...base, connections: 1, durationMs: settings.singleDurationMs };
      await add(measure(bareService, { ...single, read: 'GET /bare', urls: 'same URL', path: '/bare' }));
      await add(measure(service, { ...single, read: 'citations 28 d', urls: 'same URL', path: same.citations }));
      await add(measureCold(service, pools.citations, { ...single, read: 'citations 28 d', urls: 'cold' }));
    }
    await db.deleteFrom('api_keys').where('id', '=', key.id).execute();
    return {
      target: { label: target.label, where: target.where },
      imported,
      dataset: { runs: ds.runs, firstDay: ds.firstDay, endDay: ds.endDay, prompts: ds.prompts },
      coldPoolSize: { perRead: queries.length, timeseriesUsed: pools.timeseries.used, rankingUsed: pools.ranking.used, citationsUsed: pools.citations.used },
      probe: { statements, times },
      measurements,
      combined: combine(measurements),
    };
  } finally {
    await app?.close();
    await bare?.close();
    await target.cleanup();
  }
}

function daysOfStarts(firstDay: string, endDay: string): number {
  let n = 0;
  for (let day = firstDay; addDays(day, 27) <= endDay; day = addDays(day, 1)) n++;
  return n;
}

// ---------------------------------------------------------------------------------------------
// Part 3: timeseries while the CLI imports, the service as its own process

interface ImportPartResult {
  dataDir: string;
  dataset: { runs: number; days: number; firstDay: string; endDay: string; jsonMiB: number };
  window: string;
  importSeconds: number;
  importResult: unknown;
  runsPerSecond: number;
  probe: TimingProbe[];
  measurements: Measurement[];
  /** Pooled over the measurements that ran wholly during the import. */
  during: { urls: string; measurements: number; requests: number; rps: number; p50Ms: number; p99Ms: number; maxMs: number; failed: number }[];
  combined: Combined[];
  coldPoolSize: number;
  coldPoolWraps: number;
  serverWarnings: { count: number; first?: string };
}

async function importPart(bareService: Service): Promise<ImportPartResult> {
  const ds: Dataset = dataset({ scale: settings.scale, endDay: settings.endDay, days: settings.importDays });
  const work = benchDataDir('reads-import');
  const dataDir = join(work, 'data');
  const file = join(work, 'runs.jsonl');
  const serverLog = join(work, 'server.log');
  const children = new Set<ChildProcess>();
  let server: ChildProcess | undefined;
  let importer: ChildProcess | undefined;
  let database: Database | undefined;
  log(`\nduring an import: node src/server.ts on a fresh SIGHTLINE_DATA_DIR (${dataDir}), then sightline runs import of ${ds.runs} runs (scale ${settings.scale}, ${ds.days} days, ${ds.firstDay} to ${ds.endDay})`);
  try {
    mkdirSync(dataDir, { recursive: true });
    const port = await freePort();
    const started = await startAndWait(SERVER_SCRIPT, serviceEnv({ PORT: String(port), SIGHTLINE_DATA_DIR: dataDir, SIGHTLINE_DEMO: '0', LOG_LEVEL: settings.logLevel }), `http://127.0.0.1:${port}/api/v1/openapi.json`, serverLog, children);
    server = started.child;
    const serverPid = server.pid;
    if (serverPid === undefined) throw new Error('the server has no pid');
    log(`  server: pid ${serverPid}, port ${port}, first 200 after ${started.startMs} ms; log ${serverLog}`);
    // The bench shares the server's embedded cluster (as the CLI does) to make the project and key.
    database = await openEmbedded(dataDir, { poolSize: 2 });
    const db = database.db;
    const project = await findOrCreateProject(db, { scale: settings.scale, keep: false });
    const key = await createApiKey(db, { workspaceId: project.workspaceId, scopes: ['read'], rateLimit: 1_000_000, name: 'reads bench (import)' });
    const headers = { authorization: `Bearer ${key.key}` };
    const service: Service = {
      origin: `http://127.0.0.1:${port}`,
      headers,
      pid: serverPid,
      databasePids: () => {
        const pm = postmasterPid(dataDir);
        return pm === undefined ? [] : [pm, ...childrenOf(pm)];
      },
    };

    // The data set as JSON Lines, written before anything is measured.
    const w0 = performance.now();
    const out = createWriteStream(file);
    let bytes = 0;
    for (const line of ds.lines()) {
      bytes += line.length + 1;
      if (!out.write(`${line}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const jsonMiB = Math.round(bytes / 1024 / 1024);
    log(`  wrote ${ds.runs} lines (${jsonMiB} MiB) to ${file} in ${round1((performance.now() - w0) / 1000)} s`);

    const p = `/api/v1/projects/${project.projectId}`;
    const window = `from=${ds.firstDay}&to=${addDays(ds.firstDay, 27)}`;
    const samePath = `${p}/visibility/timeseries?${window}`;
    // Topics come with the runs: none exists before the import, so no topic filter here; the
    // subject (the brand or a competitor) varies instead.
    const queries = coldQueries(ds.firstDay, ds.endDay, { ...(await dimensionsOf(db, project)), topics: [] }, true);
    const pool = new ColdPool(`${p}/visibility/timeseries`, queries);
    log(`  same URL: ${samePath.slice(p.length)} (the first 28 days: filled once 28/${ds.days} of the import has landed); cold URLs: ${queries.length}`);
    log(`  before the import: ${summarise((await getJson(`${service.origin}${samePath}`, headers)).body)}`);

    const projectState = async () => {
      const row = await db.selectFrom('projects').select('data_version').where('id', '=', project.projectId).executeTakeFirstOrThrow();
      return { runs: await countRuns(db, project.projectId), version: Number(row.data_version) };
    };

    // The import, and the reads while it runs.
    const cli = join(ROOT, 'src', 'cli', 'main.ts');
    const importStart = performance.now();
    let importEnd: number | undefined;
    let stdout = '';
    let stderr = '';
    importer = spawn(process.execPath, [cli, 'runs', 'import', '--project', project.projectId, file, '--json'], { cwd: ROOT, env: serviceEnv({ SIGHTLINE_DATA_DIR: dataDir }), stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(importer);
    importer.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    importer.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    importer.once('exit', () => (importEnd = performance.now()));
    // 'close' comes after the output streams have ended: all of stdout is in by then.
    const importExit = new Promise<number | null>((resolve) => importer!.once('close', (code) => resolve(code)));
    const importPid = importer.pid;
    const killer = setTimeout(() => importer?.kill('SIGKILL'), settings.importTimeoutS * 1000);
    log(`  sightline runs import: pid ${importPid} (load average ${loadavg()})`);
    const measurements: Measurement[] = [];
    const pooled = { same: [] as number[], cold: [] as number[] };
    let k = 0;
    try {
      while (importEnd === undefined) {
        const cold = k++ % 2 === 1;
        const state0 = await projectState();
        const job = { phase: 'during import' as const, round: k, read: 'timeseries 28 d', urls: cold ? 'cold' : 'same URL', connections: settings.connections, keepLatencies: true, ...(importPid === undefined ? {} : { importPid }) };
        const before = pool.wraps;
        const measured = cold ? await measureCold(service, pool, job, true) : await measure(service, { ...job, path: samePath });
        const { m, latencies } = measured;
        if (pool.wraps > before) log(`  (the cold URLs ran out and started again from the first: every import batch moves the data version, so they miss again)`);
        const state1 = await projectState();
        m.project = { runsBefore: state0.runs, runsAfter: state1.runs, versionBefore: state0.version, versionAfter: state1.version };
        m.straddlesImportEnd = importEnd !== undefined;
        log(`      project: ${state0.runs} -> ${state1.runs} runs, data version ${state0.version} -> ${state1.version}${m.straddlesImportEnd ? '; the import ended during this measurement (left out of the pooled figures)' : ''}`);
        measurements.push(m);
        if (!m.straddlesImportEnd) {
          (cold ? pooled.cold : pooled.same).push(...latencies);
          recordShapes(measured);
        }
      }
    } finally {
      clearTimeout(killer);
    }
    const code = await importExit;
    children.delete(importer);
    const importSeconds = round1(((importEnd ?? performance.now()) - importStart) / 1000);
    if (code !== 0) throw new Error(`sightline runs import exited with ${code}: ${stderr.trim().slice(0, 500)}`);
    const importResult = JSON.parse(stdout.trim()) as { imported: number; skipped: number; rejected: number };
    log(`  import: ${JSON.stringify(importResult).slice(0, 200)} in ${importSeconds} s = ${Math.round(importResult.imported / importSeconds)} runs/s (load average ${loadavg()})`);
    if (importResult.imported !== ds.runs) log(`  WARNING: imported ${importResult.imported} of ${ds.runs} runs`);

    // The same reads with no import running. The data version no longer moves: a cold URL must not
    // have been requested since the import ended.
    const usedAtImportEnd = pool.used;
    log(`  after the import: ${summarise((await getJson(`${service.origin}${samePath}`, headers)).body)}`);
    const probe = [await probeTimes(service, 'timeseries 28 d (after the import)', pool, 5, true)];
    log(`  over HTTP, ${describeProbe(probe[0]!)}`);
    for (let round = 1; round <= settings.rounds; round++) {
      const base = { phase: 'after import' as const, round, read: 'timeseries 28 d', connections: settings.connections };
      measurements.push((await measure(bareService, { ...base, read: 'GET /bare', urls: 'same URL', path: '/bare' })).m);
      measurements.push((await measure(service, { ...base, urls: 'same URL', path: samePath })).m);
      const cold = await measureCold(service, pool, { ...base, urls: 'cold' }, true);
      recordShapes(cold);
      measurements.push(cold.m);
    }
    if (pool.used - usedAtImportEnd > pool.size) log(`  WARNING: after the import, the cold URLs went round the pool (${pool.size}): some were requested twice at the final data version (cache hits)`);
    await db.deleteFrom('api_keys').where('id', '=', key.id).execute();

    const during = (['same', 'cold'] as const).map((kind) => {
      const ms = measurements.filter((m) => m.phase === 'during import' && !m.straddlesImportEnd && (kind === 'cold') === (m.urls === 'cold'));
      const latencies = pooled[kind];
      const seconds = ms.reduce((a, m) => a + m.result.elapsedMs / 1000, 0);
      return {
        urls: kind === 'same' ? 'same URL' : 'cold',
        measurements: ms.length,
        requests: latencies.length,
        rps: Math.round(latencies.length / Math.max(seconds, 1e-9)),
        p50Ms: round2(percentileOf(latencies, 50)),
        p99Ms: round2(percentileOf(latencies, 99)),
        maxMs: round2(percentileOf(latencies, 100)),
        failed: ms.reduce((a, m) => a + m.result.non200 + m.result.errors, 0),
      };
    });
    return {
      dataDir,
      dataset: { runs: ds.runs, days: ds.days, firstDay: ds.firstDay, endDay: ds.endDay, jsonMiB },
      window,
      importSeconds,
      importResult,
      runsPerSecond: Math.round(importResult.imported / importSeconds),
      probe,
      measurements,
      during,
      combined: combine(measurements.filter((m) => m.phase === 'after import')),
      coldPoolSize: pool.size,
      coldPoolWraps: pool.wraps,
      serverWarnings: warningsIn(serverLog, 0),
    };
  } catch (error) {
    log(`  server log (last lines):\n${logTail(serverLog)}`);
    throw error;
  } finally {
    if (importer && importer.exitCode === null && importer.signalCode === null) await stop(importer);
    await database?.close();
    if (server) {
      const stopped = await stop(server);
      if (stopped.killed) console.warn('warning: the server did not exit within 10 s of SIGTERM; killed');
      else if (stopped.code !== 0) console.warn(`warning: the server exited with ${stopped.code} after SIGTERM`);
    }
    for (const child of children) await stop(child);
    await stopLeftoverPostmaster(dataDir, 'the import target');
    removeDataDir(work);
  }
}

// ---------------------------------------------------------------------------------------------
// Report

interface Verdict {
  target: string;
  met: boolean | undefined;
  detail: string;
}

function verdicts(reads: ReadsResult | undefined, imp: ImportPartResult | undefined, baseline: { cold?: number; same?: number; file: string } | undefined): Verdict[] {
  const out: Verdict[] = [];
  if (reads) {
    const find = (read: string, urls: string, connections: number) => reads.combined.find((c) => c.read === read && c.urls === urls && c.connections === connections);
    const c = settings.connections;
    const bare = find('GET /bare', 'same URL', c);
    const share = (read: string, urls: string, min: number, label: string) => {
      const row = find(read, urls, c);
      if (!row || !bare) return;
      const s = row.rps / bare.rps;
      out.push({ target: `${label}, ${c} connections: at least ${pct(min)} of bare req/s`, met: s >= min, detail: `${row.rps} vs ${bare.rps} req/s = ${pct(s)}; p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms` });
    };
    share('timeseries 28 d', 'same URL', TARGETS.hitShare, 'timeseries 28 d, same URL');
    share('ranking 28 d', 'same URL', TARGETS.hitShare, 'ranking 28 d, same URL');
    share('timeseries 28 d', 'cold', TARGETS.coldShare, 'timeseries 28 d, cold URLs');
    share('ranking 28 d', 'cold', TARGETS.coldShare, 'ranking 28 d, cold URLs');
    share('GET /api/v1/projects', 'same URL', TARGETS.projectsShare, 'GET /api/v1/projects');
    const scaleNote = settings.scale === 1 ? '' : ` (the target is stated at scale 1; this run is scale ${settings.scale})`;
    for (const urls of ['cold', 'same URL']) {
      const row = find('citations 28 d', urls, 1);
      if (!row) continue;
      out.push({ target: `citations 28 d, ${urls}, 1 connection: p99 at most ${TARGETS.citationsP99Ms} ms${scaleNote}`, met: row.p99Ms <= TARGETS.citationsP99Ms, detail: `p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms over ${row.requests} requests` });
      const ref = urls === 'cold' ? baseline?.cold : baseline?.same;
      out.push({
        target: `citations 28 d, ${urls}, 1 connection: p99 at most ${TARGETS.citationsGrowth}x the scale-0.1 figure (--baseline-json)`,
        met: ref === undefined ? undefined : row.p99Ms <= TARGETS.citationsGrowth * ref,
        detail: ref === undefined ? `not evaluated: give --baseline-json=FILE (a scale-0.1 run's --json-out)` : `${row.p99Ms} ms vs ${ref} ms (${baseline?.file}) = ${round2(row.p99Ms / ref)}x`,
      });
    }
  }
  if (imp) {
    for (const d of imp.during) {
      out.push({
        target: `timeseries 28 d, ${d.urls}, ${settings.connections} connections, during the import: p99 at most ${TARGETS.duringImportP99Ms} ms`,
        met: d.measurements === 0 ? undefined : d.p99Ms <= TARGETS.duringImportP99Ms,
        detail: d.measurements === 0 ? 'no measurement ran wholly during the import (it was too short)' : `p99 ${d.p99Ms} ms, p50 ${d.p50Ms} ms, max ${d.maxMs} ms over ${d.requests} requests in ${d.measurements} measurements; ${d.failed} failed`,
      });
    }
  }
  return out;
}

function readBaseline(): { cold?: number; same?: number; file: string } | undefined {
  if (!settings.baselineJson) return undefined;
  const json = JSON.parse(readFileSync(settings.baselineJson, 'utf8')) as { settings?: { scale?: number }; reads?: { combined?: Combined[] } };
  const rows = json.reads?.combined ?? [];
  const p99 = (urls: string) => rows.find((c) => c.read === 'citations 28 d' && c.urls === urls && c.connections === 1)?.p99Ms;
  const out: { cold?: number; same?: number; file: string } = { file: `${settings.baselineJson}, scale ${json.settings?.scale ?? '?'}` };
  if (json.settings?.scale !== 0.1) console.warn(`warning: --baseline-json: ${settings.baselineJson} was measured at scale ${json.settings?.scale ?? '?'}, not 0.1`);
  const cold = p99('cold');
  const same = p99('same URL');
  if (cold !== undefined) out.cold = cold;
  if (same !== undefined) out.same = same;
  return out;
}

const cpuCells = (c: Cpu) => [c.serviceCores, c.databaseCores, c.loadCores, c.otherCores];

function readsTable(reads: ReadsResult): string {
  const rows: (string | number)[][] = [];
  for (const connections of [settings.connections, 1]) {
    const bare = reads.combined.find((c) => c.read === 'GET /bare' && c.connections === connections);
    for (const c of reads.combined.filter((x) => x.connections === connections)) {
      rows.push([
        c.read,
        c.urls,
        c.connections,
        c.requests,
        c.rps,
        c.rounds.map((m) => m.result.rps).join(' / '),
        c.p50Ms,
        c.p99Ms,
        c.failed,
        bare ? pct(c.rps / bare.rps) : '-',
        bare ? round1(bare.rps / c.rps) : '-',
        ...cpuCells(c.cpu),
      ]);
    }
  }
  return table(['read', 'URLs', 'conn', 'requests', 'req/s', 'req/s by round', 'p50 ms', 'p99 ms', 'failed', '% of bare', 'bare/this', 'service cores', 'db cores', 'load gen cores', 'other cores'], rows);
}

function importTable(imp: ImportPartResult): string {
  const rows: (string | number)[][] = [];
  for (const m of imp.measurements.filter((x) => x.phase === 'during import')) {
    rows.push([
      'during import',
      `${m.read}${m.straddlesImportEnd ? ' (import ended during it)' : ''}`,
      m.urls,
      m.result.requests,
      m.result.rps,
      m.result.p50Ms,
      m.result.p99Ms,
      m.result.non200 + m.result.errors,
      m.project ? `${m.project.runsBefore}->${m.project.runsAfter}` : '-',
      m.project ? m.project.versionAfter - m.project.versionBefore : '-',
      m.cpu.serviceCores,
      m.cpu.databaseCores,
      m.cpu.importCores,
      m.cpu.loadCores,
      m.cpu.otherCores,
    ]);
  }
  for (const d of imp.during) rows.push(['during import, pooled', 'timeseries 28 d', d.urls, d.requests, d.rps, d.p50Ms, d.p99Ms, d.failed, `${d.measurements} measurements`, '', '', '', '', '', '']);
  for (const c of imp.combined) rows.push([`after import (median of ${c.rounds.length})`, c.read, c.urls, c.requests, c.rps, c.p50Ms, c.p99Ms, c.failed, '', '', c.cpu.serviceCores, c.cpu.databaseCores, '-', c.cpu.loadCores, c.cpu.otherCores]);
  return table(['phase', 'read', 'URLs', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'failed', 'project runs', 'versions moved', 'service cores', 'db cores', 'import cores', 'load gen cores', 'other cores'], rows);
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const code = codeVersion();
  const loads: Record<string, string> = { start: loadavg() };
  log(`reads bench: ${code}; Node ${process.version}; load average ${loads.start}`);
  log(
    `  each measurement: up to ${settings.requests} requests or ${settings.durationMs / 1000} s (${settings.singleDurationMs / 1000} s at 1 connection) after a ${settings.warmupMs / 1000} s / ${settings.warmupRequests}-request warm-up; ` +
      `${settings.connections} keep-alive connections; ${settings.rounds} round(s)`,
  );
  const baseline = readBaseline();
  workDir = benchDataDir('reads-work');
  const runImport = settings.duringImportOnly || (settings.db === 'embedded' && !settings.skipImport);
  let reads: ReadsResult | undefined;
  let imp: ImportPartResult | undefined;
  const bare = buildBareApp();
  try {
    if (!settings.duringImportOnly) reads = await readsPart();
    loads.afterReads = loadavg();
    if (runImport) {
      const bareService: Service = { origin: await bare.listen({ port: 0, host: '127.0.0.1' }), headers: {}, pid: undefined, databasePids: () => [] };
      imp = await importPart(bareService);
    }
  } finally {
    await bare.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  loads.end = loadavg();

  const verdictList = verdicts(reads, imp, baseline);
  log(`\n=== reads under load; ${code}; Node ${process.version}; scale ${settings.scale}`);
  log(`load average (1/5/15 min): start ${loads.start}; after the reads ${loads.afterReads}; end ${loads.end}`);
  log('CPU columns: cores busy during the measurement (load process start to end): the service (this process in the reads, the server process during the import), its database\'s processes, the load generator, and the rest of the machine (other work).');
  if (reads) {
    log(`\nReads: ${reads.target.label} (${reads.target.where}); ${reads.dataset.runs} runs, ${reads.dataset.firstDay} to ${reads.dataset.endDay}; the service in this process (buildApp, no logger).`);
    log(`URLs: "same URL" repeats one URL (28 days: from ${addDays(reads.dataset.endDay, -27)} to ${reads.dataset.endDay}): cache hits; "cold" never repeats a URL in the run: cache misses; "50 windows rotating": 50 cold URLs reused.`);
    log(`Median of ${settings.rounds} round(s) for req/s, p50 and p99.\n`);
    log(readsTable(reads));
  }
  if (imp) {
    log(`\nDuring the import: node src/server.ts (embedded PostgreSQL, LOG_LEVEL=${settings.logLevel}) while sightline runs import loaded ${imp.dataset.runs} runs (${imp.dataset.jsonMiB} MiB of JSON Lines) in ${imp.importSeconds} s (${imp.runsPerSecond} runs/s).`);
    log(`Timeseries window ${imp.window}; the pooled rows combine every latency of the measurements that ran wholly during the import.\n`);
    log(importTable(imp));
    if (imp.serverWarnings.count > 0) log(`\nwarning: the server logged ${imp.serverWarnings.count} warn/error lines, first: ${imp.serverWarnings.first ?? ''}`);
  }
  const shapes = shapeRows();
  if (shapes.length > 0) {
    log('\nCold URLs by filter shape (every measured request of the cold rows, pooled over rounds; "none": no filter. run_rollup and subject_rollup keep a cell for no filter, each single filter and all four (the detail); two or three filters sum detail cells. url_days (citations) keeps no filter and the detail only):\n');
    log(table(['phase', 'read', 'conn', 'filter shape', 'requests', 'p50 ms', 'p99 ms', 'max ms'], shapes.map((r) => [r.phase, r.read, r.connections, r.shape, r.requests, r.p50Ms, r.p99Ms, r.maxMs])));
  }
  log('\nTargets:\n');
  log(table(['target', 'met', 'figures'], verdictList.map((v) => [v.target, v.met === undefined ? 'n/a' : v.met ? 'met' : 'NOT MET', v.detail])));
  log(`\nwhole run: ${sinceStart()} s`);
  writeJsonOut({ settings, targets: TARGETS, code, node: process.version, loads, reads, import: imp, coldByShape: shapes, verdicts: verdictList });
}

await main();
