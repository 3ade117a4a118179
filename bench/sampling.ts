/**
 * Sampling throughput: checks per second through the sampling queue (src/sampling) against a fake
 * SerpApi that answers every search after 800 ms, and the CPU the queue spends per check outside the
 * provider call, beside "the provider alone" (the same searches sent straight to the fake through the
 * same adapters and guarded client, at the same concurrency, no queue and no database) measured in
 * the same run. See bench/README.md ("Sampling throughput").
 *
 *   node_modules/node/bin/node bench/sampling.ts                                   # embedded PostgreSQL
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
 *     node_modules/node/bin/node bench/sampling.ts --db=postgres                   # a scratch database on the server
 *
 * - The database: the embedded PostgreSQL in a fresh data directory `.tmp/bench-sampling-<pid>`
 *   (`--db=embedded`, the default; stopped and deleted at the end), or a fresh database
 *   `sightline_bench_sampling_<pid>` on the loopback server of DATABASE_URL (`--db=postgres`; dropped
 *   at the end). Migrated; a pool of `--pool` connections (10, the server's).
 * - The provider: lib/fake-serpapi.ts in its own process (its CPU is not the service's), on
 *   127.0.0.1, configured as SerpApi's base URL (SERPAPI_API_KEY, SERPAPI_BASE_URL); every search
 *   answered after `--delay-ms` (800) with a small answer naming the brand and citing one page.
 *   SIGHTLINE_SAMPLER_CONCURRENCY = `--concurrency` (64), SIGHTLINE_PROVIDER_CONCURRENCY =
 *   `--provider-concurrency` (64): the three SerpApi engines share the provider's cap.
 * - The checks: one workspace (plan enterprise, daily ceiling 1,000,000 USD, credits not enforced);
 *   for every queue run a new project (brand Acme, competitor Globex) with `--checks`/(3 x `--samples`)
 *   prompts on google_ai_overviews, google_ai_mode and copilot, `--samples` (10) samples each, no
 *   location: `--checks` (600) checks, rounded up to a whole prompt.
 * - Each round (`--rounds`, 3), in an order that rotates from round to round:
 *   - "provider alone": the same number of searches, `ENGINE_ADAPTERS[engine].check` through a new
 *     guarded client (createOutbound, as the server makes it), at min(concurrency, provider
 *     concurrency) in flight;
 *   - "queue, server worker": `startSampler` (no `only`: every due check, as `serve` runs it) started
 *     first; the clock starts, the cycle is queued (`sampleNow(..., wait=false)`), the sampler is
 *     woken (as the scheduler does), and the bench polls every 100 ms until no check of the cycle is
 *     left undone;
 *   - "queue, sample --wait": `sampleNow(..., wait=true)`, which queues the cycle and works it itself
 *     (`startSampler` with `only`) until done.
 *   A warm-up (`--warmup-checks`, 90: a queue run and a provider-alone run of that size) comes first,
 *   unmeasured. A run still unfinished after `--max-run-s` (120) is stopped and counts as a failure.
 * - CPU over each run (lib/contention.ts): this process (process.cpuUsage: the sampler, the pg driver,
 *   the HTTP client; the bench's own 100 ms poll is a count query), the database (embedded: the
 *   postmaster and all its children; server: its backends on the bench database, and apart, the
 *   server-wide checkpointer, WAL writer and background writer), the fake, and other work.
 * - After each queue run, checked (a failure makes the run fail loudly and the exit status 1): every
 *   check done, outcome ok, after exactly one attempt; as many runs as checks, each the run of its
 *   check; as many `consume` ledger entries as checks against those runs, the credits the checks
 *   held; the fake answered exactly as many searches; no error reported by the sampler.
 * - Profile (`--profile=1`, the default; 0 skips it): one more server-worker run on a second pool
 *   whose connections time every statement and every transaction (begin to commit). Each
 *   transaction is put under the step its first statement names: claim (claim-checks.ts), hold
 *   (hold-credits.ts), finish (finish-check.ts); statements outside transactions as enqueue/other.
 *   Statement times include waiting for locks; pool waiters are sampled every 20 ms; this process's
 *   main thread is profiled (node:inspector) over the run, its self time summed by where the code lives.
 *
 * Settings (argument, else BENCH_* variable): --db (embedded | postgres), --checks (600), --samples
 * (10), --concurrency (64), --provider-concurrency (64), --delay-ms (800), --rounds (3), --modes
 * (server,wait), --warmup-checks (90; 0 skips), --pool (10), --max-run-s (120), --profile (1),
 * --json-out=FILE.
 */
import type { ChildProcess } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { sql, Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { openEmbedded, openPostgres, type Database } from '../src/db/database.ts';
import { leaseCluster, type ClusterLease } from '../src/db/embedded/lease-cluster.ts';
import { APP_DATABASE, ROLE } from '../src/db/embedded/layout.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { prepareDeclaredStatements } from '../src/db/prepared.ts';
import { pgTypes } from '../src/db/type-parsers.ts';
import type { DB } from '../src/db/types.ts';
import { createOutbound, type Outbound } from '../src/outbound/outbound.ts';
import { serviceUserAgent } from '../src/outbound/user-agent.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { createProject } from '../src/projects/create-project.ts';
import { addPrompt } from '../src/prompts/add-prompt.ts';
import type { EngineKey } from '../src/runs/vocabulary.ts';
import { ENGINE_ADAPTERS } from '../src/sampling/providers/adapters.ts';
import { loadSamplingConfig, providerOrigins, type SamplingConfig } from '../src/sampling/providers/providers-config.ts';
import { sampleNow } from '../src/sampling/sample-now.ts';
import { startSampler, type SamplerDeps } from '../src/sampling/sampler.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';
import { updateWorkspace } from '../src/workspaces/update-workspace.ts';
import { benchDataDir, postmasterPid, removeDataDir, stopLeftoverPostmaster } from './lib/cluster.ts';
import { BENCH_DIR, round1, setting, startChildServer, stop, stringArg, table, writeJsonOut } from './lib/common.ts';
import { ContentionMeter, cpuOf, cpuSnapshot, type Busy } from './lib/contention.ts';
import type { FakeStats } from './lib/fake-serpapi.ts';
import { codeVersion, createScratchServerDatabase, loadavg, median, type ScratchServerDatabase } from './lib/scratch-db.ts';

const ENGINES: EngineKey[] = ['google_ai_overviews', 'google_ai_mode', 'copilot'];
const MODES = ['server', 'wait'] as const;
type Mode = (typeof MODES)[number];

const settings = {
  db: (stringArg('db') ?? process.env.BENCH_DB ?? 'embedded').trim(),
  checks: Math.max(ENGINES.length, Math.round(setting('checks', 600))),
  samples: Math.min(100, Math.max(1, Math.round(setting('samples', 10)))),
  concurrency: Math.max(1, Math.round(setting('concurrency', 64))),
  providerConcurrency: Math.max(1, Math.round(setting('provider-concurrency', 64))),
  delayMs: setting('delay-ms', 800),
  rounds: Math.max(1, Math.round(setting('rounds', 3))),
  modes: (stringArg('modes') ?? process.env.BENCH_MODES ?? 'server,wait').split(',').map((m) => m.trim()).filter(Boolean) as Mode[],
  warmupChecks: Math.round(setting('warmup-checks', 90)),
  pool: Math.max(1, Math.round(setting('pool', 10))),
  maxRunS: setting('max-run-s', 120),
  profile: setting('profile', 1) > 0,
};
if (settings.db !== 'embedded' && settings.db !== 'postgres') throw new Error(`--db must be embedded or postgres, got "${settings.db}"`);
const badMode = settings.modes.find((m) => !MODES.includes(m));
if (badMode !== undefined || settings.modes.length === 0) throw new Error(`--modes must list server and/or wait, got "${settings.modes.join(',')}"`);
/** Checks in flight at most: the instance's limit, and the one provider's (its three engines share it). */
const inFlightCap = Math.min(settings.concurrency, settings.providerConcurrency);

/** The issue's targets. */
const TARGETS = { checksPerSecond: 20, cpuMsPerCheck: 5 };

const log = (line: string) => console.log(line);
const t0 = performance.now();
const sinceStart = () => round1((performance.now() - t0) / 1000);
const round2 = (n: number) => Math.round(n * 100) / 100;
/** How often the bench looks whether a server-worker run is done (sample --wait looks every 200 ms itself). */
const POLL_MS = 100;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** PostgreSQL's server-wide processes: they work for every database on the server. */
const PG_SHARED = /^postgres: \S+: (checkpointer|background writer|walwriter|autovacuum launcher|logical replication launcher)/;

// ---------------------------------------------------------------------------------------------
// The fake provider, in its own process

interface Fake {
  child: ChildProcess;
  pid: number;
  origin: string;
  stats(): Promise<FakeStats>;
  /** Counts back to zero; returns those before. */
  reset(): Promise<FakeStats>;
}

async function startFake(delayMs: number): Promise<Fake> {
  const { child, port, pid } = await startChildServer(join(BENCH_DIR, 'lib', 'fake-serpapi.ts'), { delayMs }, 'the fake SerpApi');
  const origin = `http://127.0.0.1:${port}`;
  const get = async (path: string) => (await (await fetch(`${origin}${path}`)).json()) as FakeStats;
  return { child, pid, origin, stats: () => get('/__stats'), reset: () => get('/__reset') };
}

// ---------------------------------------------------------------------------------------------
// The database

interface Target {
  database: Database;
  label: string;
  where: string;
  /** A pool of its own on the same database (the profile). */
  clientConfig(): Promise<pg.PoolConfig>;
  /** A meter of this process and the database's processes (see dbCores). */
  meter(): ContentionMeter;
  /** The database's share of a meter's reading: embedded, the whole postmaster family; server, its backends. */
  dbCores(b: Busy): number;
  /** The server's shared processes (server only; 0 for the embedded, whose are in dbCores). */
  sharedCores(b: Busy): number;
  close(): Promise<void>;
}

async function openTarget(): Promise<Target> {
  if (settings.db === 'postgres') {
    const scratch: ScratchServerDatabase | undefined = await createScratchServerDatabase('sampling');
    if (!scratch) throw new Error('--db=postgres needs DATABASE_URL (a loopback server to make the bench database on), e.g. postgres://postgres@127.0.0.1:5432/postgres');
    const database = openPostgres(scratch.url, settings.pool);
    try {
      await migrateToLatest(database.db);
    } catch (error) {
      await database.close();
      await scratch.drop();
      throw error;
    }
    const backends = new RegExp(`^postgres: \\S+: (\\S+ ${scratch.name} |autovacuum worker ${scratch.name}\\b)`);
    return {
      database,
      label: scratch.label,
      where: scratch.where,
      clientConfig: async () => ({ connectionString: scratch.url }),
      meter: () => new ContentionMeter({ backend: backends, shared: PG_SHARED }),
      dbCores: (b) => b.backendCores,
      sharedCores: (b) => b.sharedCores,
      close: async () => {
        try {
          await database.close();
        } finally {
          await scratch.drop();
        }
      },
    };
  }
  const dir = benchDataDir('sampling');
  let database: Database;
  try {
    database = await openEmbedded(dir, { poolSize: settings.pool });
    await migrateToLatest(database.db);
  } catch (error) {
    await stopLeftoverPostmaster(dir);
    removeDataDir(dir);
    throw error;
  }
  const version = (await sql<{ v: string }>`select current_setting('server_version') as v`.execute(database.db)).rows[0]?.v ?? '?';
  let lease: ClusterLease | undefined;
  return {
    database,
    label: `embedded PostgreSQL ${version.split('.')[0]}`,
    where: `embedded PostgreSQL ${version.split(' ')[0]} in ${dir} (stopped and deleted at the end)`,
    clientConfig: async () => {
      lease ??= await leaseCluster(dir);
      return lease.connection(APP_DATABASE);
    },
    // Only this cluster's processes (its postmaster and children): all of them are the database's work.
    meter: () => new ContentionMeter({ backend: new RegExp(`^postgres: (${ROLE} ${APP_DATABASE} |autovacuum worker ${APP_DATABASE}\\b)`), family: postmasterPid(dir) ?? -1 }),
    dbCores: (b) => b.backendCores + b.sharedCores,
    sharedCores: () => 0,
    close: async () => {
      try {
        await database.close();
        await lease?.release();
      } finally {
        await stopLeftoverPostmaster(dir);
        removeDataDir(dir);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Runs

type Kind = 'provider alone' | 'queue, server worker' | 'queue, sample --wait';

interface Cpu {
  seconds: number;
  machineCores: number;
  serviceCores: number;
  dbCores: number;
  /** Server only: its checkpointer, WAL writer... (not in dbCores). */
  sharedCores: number;
  fakeCores: number;
  otherCores: number;
}

export interface RunResult {
  kind: Kind;
  round: number;
  checks: number;
  seconds: number;
  perSecond: number;
  /** Queue runs: checks finished between the 10th and the 90th percentile of finish times, per second. */
  steadyPerSecond?: number;
  fake: FakeStats;
  cpu: Cpu;
  /** CPU ms per check (per search for the provider alone). */
  serviceMsPerCheck: number;
  dbMsPerCheck: number;
  totalMsPerCheck: number;
  problems: string[];
  loadavg: string;
}

const results: RunResult[] = [];
const problems: string[] = [];

function cpuOfRun(target: Target, busy: Busy | undefined, fakeCores: number): Cpu {
  if (!busy) throw new Error('CPU measurement needs Linux /proc');
  const dbCores = round2(target.dbCores(busy));
  const sharedCores = round2(target.sharedCores(busy));
  return {
    seconds: busy.seconds,
    machineCores: busy.machineCores,
    serviceCores: busy.selfCores,
    dbCores,
    sharedCores,
    fakeCores,
    otherCores: round2(Math.max(0, busy.machineCores - busy.selfCores - dbCores - sharedCores - fakeCores)),
  };
}

interface Clock {
  /** The run starts: CPU is measured from here. */
  start(): void;
  /** The run is over: CPU is measured up to here. */
  end(): void;
}

interface Work {
  checks: number;
  /** After the clock stopped (not measured): checks what was done. */
  after?: () => Promise<{ steadyPerSecond?: number; problems: string[] }>;
  problems: string[];
}

/** Measures `work` (which says when the run starts and ends) with the CPU of everything involved. */
async function measured(target: Target, fake: Fake, kind: Kind, round: number, work: (clock: Clock) => Promise<Work>): Promise<RunResult> {
  await fake.reset();
  const meter = target.meter();
  let fakeBefore = cpuSnapshot([fake.pid]);
  let fakeAfter = fakeBefore;
  let busy: Busy | undefined;
  let startedAt = 0;
  let endedAt = 0;
  const out = await work({
    start() {
      fakeBefore = cpuSnapshot([fake.pid]);
      meter.start();
      startedAt = performance.now();
    },
    end() {
      endedAt = performance.now();
      busy = meter.stop();
      fakeAfter = cpuSnapshot([fake.pid]);
    },
  });
  if (startedAt === 0 || endedAt === 0) throw new Error(`${kind}: the run never started or ended its clock`);
  const fakeStats = await fake.stats();
  const checked = out.after ? await out.after() : { problems: [] };
  const cpu = cpuOfRun(target, busy, cpuOf(fakeBefore, fakeAfter, [fake.pid]));
  const seconds = (endedAt - startedAt) / 1000;
  const perCheck = (cores: number) => round2((cores * cpu.seconds * 1000) / out.checks);
  const result: RunResult = {
    kind,
    round,
    checks: out.checks,
    seconds: round2(seconds),
    perSecond: round1(out.checks / seconds),
    ...(checked.steadyPerSecond === undefined ? {} : { steadyPerSecond: checked.steadyPerSecond }),
    fake: fakeStats,
    cpu,
    serviceMsPerCheck: perCheck(cpu.serviceCores),
    dbMsPerCheck: perCheck(cpu.dbCores),
    totalMsPerCheck: perCheck(cpu.serviceCores + cpu.dbCores),
    problems: [...out.problems, ...checked.problems],
    loadavg: loadavg(),
  };
  if (fakeStats.answered !== out.checks) result.problems.push(`the fake answered ${fakeStats.answered} searches, not ${out.checks}`);
  if (fakeStats.unexpected > 0) result.problems.push(`the fake got ${fakeStats.unexpected} requests it does not know`);
  log(
    `  ${kind.padEnd(22)} round ${round}: ${String(out.checks).padStart(5)} in ${seconds.toFixed(2).padStart(6)} s = ${String(result.perSecond).padStart(6)}/s` +
      `${result.steadyPerSecond === undefined ? '' : ` (steady ${result.steadyPerSecond}/s)`}; at the provider ${fakeStats.meanInFlight} in flight on average, ${fakeStats.maxInFlight} at most; ` +
      `CPU ms per check: service ${result.serviceMsPerCheck}, db ${result.dbMsPerCheck}; cores: service ${cpu.serviceCores}, db ${cpu.dbCores}${settings.db === 'postgres' ? `, server-wide ${cpu.sharedCores}` : ''}, fake ${cpu.fakeCores}, other ${cpu.otherCores}` +
      `${result.problems.length ? `\n    FAILED: ${result.problems.join('; ')}` : ''}`,
  );
  for (const p of result.problems) problems.push(`${kind}, round ${round}: ${p}`);
  return result;
}

function samplingConfig(fake: Fake): SamplingConfig {
  return loadSamplingConfig({
    SERPAPI_API_KEY: 'bench-serpapi-key',
    SERPAPI_BASE_URL: fake.origin,
    SIGHTLINE_SAMPLER_CONCURRENCY: String(settings.concurrency),
    SIGHTLINE_PROVIDER_CONCURRENCY: String(settings.providerConcurrency),
  });
}

/** A guarded client as the server makes its providers' (server.ts): the configured base URLs may be private. */
function providerOutbound(sampling: SamplingConfig): Outbound {
  return createOutbound({ userAgent: serviceUserAgent('http://127.0.0.1'), trusted: providerOrigins(sampling.providers) });
}

/** The provider alone: `checks` searches through the adapters, `inFlightCap` at a time, no queue, no database. */
async function providerAlone(target: Target, fake: Fake, checks: number, round: number): Promise<RunResult> {
  const sampling = samplingConfig(fake);
  return measured(target, fake, 'provider alone', round, async (clock) => {
    const outbound = providerOutbound(sampling);
    const failures: string[] = [];
    clock.start();
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < checks; i = next++) {
        const engine = ENGINES[i % ENGINES.length]!;
        const settings = sampling.providers.find((p) => p.engine === engine)!;
        const prompt = `best crm for startups #${Math.floor(i / (ENGINES.length * 10))}`;
        try {
          const capture = await ENGINE_ADAPTERS[engine]!.check({ prompt, location: '' }, { outbound, settings: { ...settings, apiKey: settings.apiKey! } });
          if (capture.outcome !== 'ok') failures.push(`${engine}: ${capture.outcome}`);
        } catch (error) {
          failures.push(`${engine}: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlightCap, checks) }, worker));
    clock.end();
    await outbound.close();
    return { checks, problems: failures.length ? [`${failures.length} searches failed, first: ${failures[0]}`] : [] };
  });
}

interface Cycle {
  projectId: string;
  prompts: number;
  checks: number;
}

let projectCount = 0;

/** A new project in the bench workspace with prompts for `checks` checks (rounded up to a whole prompt). */
async function makeCycle(db: Kysely<DB>, workspaceId: string, checks: number): Promise<Cycle> {
  const perPrompt = ENGINES.length * settings.samples;
  const prompts = Math.max(1, Math.ceil(checks / perPrompt));
  const { id: projectId } = await createProject(db, workspaceId, { name: 'Acme', domain: 'acme.com', color: '#112233' });
  await addCompetitor(db, projectId, { name: 'Globex', domain: 'globex.com' });
  const n = ++projectCount;
  for (let i = 0; i < prompts; i++) await addPrompt(db, projectId, { text: `best crm for startups, project ${n} #${i}`, engines: ENGINES, samples: settings.samples, locations: [] });
  return { projectId, prompts, checks: prompts * perPrompt };
}

async function undone(db: Kysely<DB>, projectId: string): Promise<number> {
  const row = await db.selectFrom('checks').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).where('state', '<>', 'done').executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Ends a run that overran --max-run-s: queued checks are marked skipped so the worker stops. */
async function abandon(db: Kysely<DB>, projectId: string): Promise<number> {
  const res = await db.updateTable('checks').set({ state: 'done', outcome: 'skipped', reason: 'bench: --max-run-s' }).where('project_id', '=', projectId).where('state', '=', 'queued').executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Every check done once and recorded once, charged once. */
async function verify(db: Kysely<DB>, cycle: Cycle, errors: unknown[]): Promise<string[]> {
  const out: string[] = [];
  const checks = await db
    .selectFrom('checks')
    .select((eb) => [
      eb.fn.countAll<number>().as('n'),
      sql<number>`count(*) filter (where state = 'done' and outcome = 'ok' and attempts = 1 and run_id = id)`.as('good'),
      sql<string>`string_agg(distinct coalesce(outcome, state) || ':' || attempts, ',')`.as('kinds'),
      sql<number>`coalesce(sum(credits), 0)::float8`.as('credits'),
    ])
    .where('project_id', '=', cycle.projectId)
    .executeTakeFirstOrThrow();
  if (Number(checks.n) !== cycle.checks) out.push(`${checks.n} checks queued, not ${cycle.checks}`);
  if (Number(checks.good) !== cycle.checks) out.push(`${checks.good} of ${cycle.checks} checks done ok after one attempt with their run (outcome:attempts seen: ${checks.kinds})`);
  const runs = await db
    .selectFrom('runs')
    .select((eb) => [eb.fn.countAll<number>().as('n'), sql<number>`count(distinct check_id) filter (where check_id = id and status = 'ok')`.as('good')])
    .where('project_id', '=', cycle.projectId)
    .executeTakeFirstOrThrow();
  if (Number(runs.n) !== cycle.checks || Number(runs.good) !== cycle.checks) out.push(`${runs.n} runs (${runs.good} ok, each its check's), not ${cycle.checks}`);
  const ledger = await db
    .selectFrom('credit_ledger')
    .select((eb) => [eb.fn.countAll<number>().as('n'), sql<number>`count(distinct run_id)`.as('runs'), sql<number>`coalesce(sum(credits), 0)::float8`.as('credits')])
    .where('kind', '=', 'consume')
    .where('run_project_id', '=', cycle.projectId)
    .executeTakeFirstOrThrow();
  if (Number(ledger.n) !== cycle.checks || Number(ledger.runs) !== cycle.checks) out.push(`${ledger.n} consume ledger entries for ${ledger.runs} runs, not ${cycle.checks}`);
  if (Math.abs(Number(ledger.credits) - Number(checks.credits)) > 1e-6) out.push(`the ledger charged ${ledger.credits} credits, the checks hold ${checks.credits}`);
  if (errors.length > 0) out.push(`${errors.length} errors reported by the sampler, first: ${String((errors[0] as Error)?.stack ?? errors[0]).slice(0, 400)}`);
  return out;
}

/** Checks finished between the 10th and 90th percentile of their finish times, per second. */
async function steadyRate(db: Kysely<DB>, projectId: string): Promise<number | undefined> {
  const rows = await db.selectFrom('checks').select('finished_at').where('project_id', '=', projectId).where('finished_at', 'is not', null).orderBy('finished_at').execute();
  if (rows.length < 20) return undefined;
  const at = (p: number) => new Date(rows[Math.min(rows.length - 1, Math.floor(p * rows.length))]!.finished_at!).getTime();
  const ms = at(0.9) - at(0.1);
  return ms > 0 ? round1((Math.floor(0.9 * rows.length) - Math.floor(0.1 * rows.length)) / (ms / 1000)) : undefined;
}

function depsOn(db: Kysely<DB>, sampling: SamplingConfig, outbound: Outbound, errors: unknown[]): SamplerDeps {
  return { db, outbound, sampling, providers: sampling.providers, adapters: ENGINE_ADAPTERS, now: () => new Date(), onError: (error) => errors.push(error) };
}

/** Around the measured window of a run (the profile's CPU profiler). */
interface Hooks {
  beforeStart(): Promise<void>;
  afterEnd(): Promise<void>;
}

/**
 * One cycle through the queue. `server`: the worker `serve` runs (every due check), started before
 * the cycle is queued; `wait`: `sample --wait`. `db` is the database the queue works on (the profile
 * passes its instrumented one); `control` is the bench's own (setup, polling, checking).
 */
async function queueRun(target: Target, fake: Fake, workspaceId: string, mode: Mode, round: number, checks: number, db?: Kysely<DB>, hooks?: Hooks): Promise<RunResult> {
  const control = target.database.db;
  const queueDb = db ?? control;
  const sampling = samplingConfig(fake);
  const cycle = await makeCycle(control, workspaceId, checks);
  const kind: Kind = mode === 'server' ? 'queue, server worker' : 'queue, sample --wait';
  return measured(target, fake, kind, round, async (clock) => {
    const outbound = providerOutbound(sampling);
    const errors: unknown[] = [];
    const deps = depsOn(queueDb, sampling, outbound, errors);
    const runProblems: string[] = [];
    try {
      if (mode === 'server') {
        const sampler = startSampler(deps);
        try {
          await sleep(50); // its first look finds nothing: it then waits for a wake or its poll
          await hooks?.beforeStart();
          clock.start();
          const startedAt = performance.now();
          const queued = await sampleNow(deps, cycle.projectId, undefined, false);
          if (queued.checks !== cycle.checks) runProblems.push(`sampleNow planned ${queued.checks} checks, not ${cycle.checks}`);
          sampler.wake();
          while ((await undone(control, cycle.projectId)) > 0) {
            if (performance.now() - startedAt > settings.maxRunS * 1000) {
              runProblems.push(`unfinished after ${settings.maxRunS} s (--max-run-s): ${await abandon(control, cycle.projectId)} checks still queued were dropped`);
              break;
            }
            await sleep(POLL_MS);
          }
          clock.end();
          await hooks?.afterEnd();
        } finally {
          await sampler.stop();
        }
      } else {
        let timedOut = false;
        const guard = setTimeout(() => {
          timedOut = true;
          void abandon(control, cycle.projectId).catch(() => undefined);
        }, settings.maxRunS * 1000);
        try {
          await hooks?.beforeStart();
          clock.start();
          const result = await sampleNow(deps, cycle.projectId, undefined, true);
          clock.end();
          await hooks?.afterEnd();
          if (timedOut) runProblems.push(`unfinished after ${settings.maxRunS} s (--max-run-s): the checks still queued were dropped`);
          if (result.ok !== cycle.checks) runProblems.push(`sample --wait: ${JSON.stringify(result)}, not ${cycle.checks} ok`);
        } finally {
          clearTimeout(guard);
        }
      }
    } finally {
      await outbound.close();
    }
    return {
      checks: cycle.checks,
      problems: runProblems,
      after: async () => {
        const steady = await steadyRate(control, cycle.projectId);
        return { ...(steady === undefined ? {} : { steadyPerSecond: steady }), problems: await verify(control, cycle, errors) };
      },
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Profile: where the queue's database time and its own CPU go

type Step = 'claim' | 'hold' | 'finish' | 'enqueue' | 'other';
const STEP_FILES: Record<Step, string> = {
  claim: 'claim-checks.ts',
  hold: 'hold-credits.ts',
  finish: 'finish-check.ts, with run-record-of.ts, record-runs.ts and the ledger',
  enqueue: 'enqueue-cycle.ts, sample-now.ts, no transaction',
  other: 'other',
};
/** What each step's first statement waits for. */
const STEP_LOCKS: Record<Step, string> = {
  claim: 'the advisory lock sightline:claim-checks (one claimer at a time)',
  hold: "the workspace's row (select ... for update)",
  finish: "the project's advisory lock (lockProject)",
  enqueue: '-',
  other: '-',
};

interface StatementFigure {
  step: Step;
  statement: string;
  count: number;
  ms: number;
}

interface StepFigure {
  step: Step;
  transactions: number;
  statements: number;
  /** Every statement's time, begin and commit included (lock waits included). */
  statementMs: number;
  /** Begin to commit, summed: the time the step held a connection. */
  transactionMs: number;
  /** The first statement after begin: where each step takes its lock. */
  firstStatementMs: number;
  /** From the first statement's end (the lock taken) to commit: the time the lock was held. */
  heldMs: number;
}

interface CpuCategory {
  category: string;
  ms: number;
}

export interface ProfileResult {
  run: RunResult;
  steps: (StepFigure & { statementMsPerCheck: number; share: number; meanTransactionMs: number; meanFirstStatementMs: number; meanHeldMs: number; heldShareOfRun: number })[];
  statements: StatementFigure[];
  pool: { size: number; meanWaiting: number; maxWaiting: number; meanBusy: number };
  /** The main thread's CPU profile over the run (node:inspector), self time by where the code lives. */
  cpu: { sampledMs: number; categories: CpuCategory[]; functions: { fn: string; where: string; ms: number }[] } | undefined;
}

const kinds = new Map<string, string>();
/** The shape of a statement (cached by text: the profile's own cost stays small). */
function statementKind(text: string): string {
  let kind = kinds.get(text);
  if (kind === undefined) kinds.set(text, (kind = shapeOf(text)));
  return kind;
}

/** The shape of a statement: its verb and first table, or the lock it takes. */
function shapeOf(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().toLowerCase();
  if (t.includes('sightline:claim-checks')) return 'advisory lock sightline:claim-checks';
  if (t.includes('pg_advisory_xact_lock(hashtextextended($1')) return 'advisory lock of the project (lockProject)';
  if (t.startsWith('with busy as')) return 'with busy, due, picked: update checks (the claim)';
  const m = /^(insert into|select .*? from|update|delete from|with .*? (?:select .*? from|insert into|update)) "?([a-z_]+)"?/.exec(t);
  if (m) return `${m[1]!.startsWith('select') ? 'select' : m[1]!.startsWith('with') ? 'with ...' : m[1]} ${m[2]}${m[1]!.startsWith('select') && t.includes(' for update') ? ' for update' : ''}`;
  return t.slice(0, 40);
}

function firstStepOf(text: string): Step {
  const t = text.toLowerCase();
  if (t.includes('sightline:claim-checks')) return 'claim';
  if (t.includes('credits_enforced')) return 'hold';
  if (t.includes('pg_advisory_xact_lock(hashtextextended($1')) return 'finish';
  return 'other';
}

/** Where a profiled function lives, as a category. */
function categoryOf(url: string, fn: string): string {
  if (fn === '(garbage collector)') return 'garbage collector';
  if (fn === '(program)') return '(program: V8 and native code outside JS)';
  const src = /\/src\/([a-z-]+)\//.exec(url);
  if (src && !url.includes('node_modules')) return `src/${src[1]}`;
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (mod) return mod[1]!.startsWith('pg') ? 'pg driver (pg, pg-protocol, pg-types...)' : mod[1]!;
  if (url === '') return 'native (writev: socket writes, ...)';
  if (url.startsWith('node:')) return 'Node internals (node:*)';
  if (url.startsWith('wasm://')) return "wasm (undici's HTTP parser)";
  if (url.includes('/bench/')) return 'bench';
  return url;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

async function profileRun(target: Target, fake: Fake, workspaceId: string): Promise<ProfileResult> {
  const statements = new Map<string, StatementFigure>();
  const steps = new Map<Step, StepFigure>();
  const stepOf = (step: Step) => {
    let s = steps.get(step);
    if (!s) steps.set(step, (s = { step, transactions: 0, statements: 0, statementMs: 0, transactionMs: 0, firstStatementMs: 0, heldMs: 0 }));
    return s;
  };
  const pool = new pg.Pool({ ...(await target.clientConfig()), max: settings.pool, types: pgTypes });
  pool.on('error', () => undefined);
  prepareDeclaredStatements(pool);
  pool.on('connect', (client) => {
    const inner = client.query.bind(client) as (...args: unknown[]) => unknown;
    // Per connection: the transaction open on it (its step, once its first statement names it).
    let txn: { begunAt: number; step: Step | undefined; beginMs: number; lockedAt: number | undefined } | undefined;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
      const textOf = typeof text === 'string' ? text : String((text as { text?: string })?.text ?? '');
      const started = performance.now();
      const lower = textOf.trim().toLowerCase();
      const isBegin = lower === 'begin' || lower.startsWith('start transaction');
      const isEnd = lower === 'commit' || lower === 'rollback';
      if (isBegin) txn = { begunAt: started, step: undefined, beginMs: 0, lockedAt: undefined };
      const open = txn;
      const first = open !== undefined && !isBegin && !isEnd && open.step === undefined;
      const step: Step | undefined = isBegin || isEnd ? open?.step : open ? (open.step ??= firstStepOf(textOf)) : 'enqueue';
      const record = () => {
        const now = performance.now();
        const ms = now - started;
        if (isBegin) {
          if (open) open.beginMs = ms; // counted once the step is known
          return;
        }
        const s = step ?? open?.step ?? 'other';
        const fig = stepOf(s);
        fig.statements++;
        fig.statementMs += ms;
        if (first && open) {
          fig.firstStatementMs += ms;
          open.lockedAt = now;
        }
        if (isEnd && open) {
          fig.statements++;
          fig.statementMs += open.beginMs;
          fig.transactions++;
          fig.transactionMs += now - open.begunAt;
          fig.heldMs += now - (open.lockedAt ?? open.begunAt);
          if (txn === open) txn = undefined;
        }
        const kind = isEnd ? lower : statementKind(textOf);
        const key = `${s}|${kind}`;
        let st = statements.get(key);
        if (!st) statements.set(key, (st = { step: s, statement: kind, count: 0, ms: 0 }));
        st.count++;
        st.ms += ms;
      };
      const result = inner(text, values, callback) as Promise<unknown> | undefined;
      if (result && typeof result.then === 'function') result.then(record, record);
      return result;
    };
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  let waitingSum = 0;
  let busySum = 0;
  let samples = 0;
  let maxWaiting = 0;
  let poolSampler: NodeJS.Timeout | undefined;
  const session = new Session();
  let cpuProfile: { nodes: ProfileNode[]; startTime: number; endTime: number; samples?: number[]; timeDeltas?: number[] } | undefined;
  const hooks: Hooks = {
    async beforeStart() {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 500 });
      await session.post('Profiler.start');
      poolSampler = setInterval(() => {
        samples++;
        waitingSum += pool.waitingCount;
        busySum += pool.totalCount - pool.idleCount;
        maxWaiting = Math.max(maxWaiting, pool.waitingCount);
      }, 20);
    },
    async afterEnd() {
      clearInterval(poolSampler);
      cpuProfile = ((await session.post('Profiler.stop')) as { profile: typeof cpuProfile }).profile;
      session.disconnect();
    },
  };
  try {
    const run = await queueRun(target, fake, workspaceId, 'server', 0, settings.checks, db, hooks);
    const checks = run.checks;
    const runMs = run.seconds * 1000;
    const total = [...steps.values()].reduce((a, s) => a + s.statementMs, 0);
    return {
      run,
      steps: [...steps.values()]
        .sort((a, b) => b.statementMs - a.statementMs)
        .map((s) => ({
          ...s,
          statementMs: round1(s.statementMs),
          transactionMs: round1(s.transactionMs),
          firstStatementMs: round1(s.firstStatementMs),
          heldMs: round1(s.heldMs),
          statementMsPerCheck: round2(s.statementMs / checks),
          meanTransactionMs: s.transactions ? round2(s.transactionMs / s.transactions) : 0,
          meanFirstStatementMs: s.transactions ? round2(s.firstStatementMs / s.transactions) : 0,
          meanHeldMs: s.transactions ? round2(s.heldMs / s.transactions) : 0,
          heldShareOfRun: round2(s.heldMs / runMs),
          share: round2(s.statementMs / Math.max(total, 1e-9)),
        })),
      statements: [...statements.values()].sort((a, b) => b.ms - a.ms).map((s) => ({ ...s, ms: round1(s.ms) })),
      pool: { size: settings.pool, meanWaiting: round1(waitingSum / Math.max(samples, 1)), maxWaiting, meanBusy: round1(busySum / Math.max(samples, 1)) },
      cpu: cpuProfile ? summariseCpuProfile(cpuProfile, checks) : undefined,
    };
  } finally {
    clearInterval(poolSampler);
    await db.destroy();
  }
}

/** Self time by category and the busiest functions, per check; idle time left out. */
function summariseCpuProfile(profile: { nodes: ProfileNode[]; samples?: number[]; timeDeltas?: number[] }, checks: number): NonNullable<ProfileResult['cpu']> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfMs = new Map<number, number>();
  const ids = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  // Each sample's time is the delta to the next sample.
  for (let i = 0; i < ids.length; i++) selfMs.set(ids[i]!, (selfMs.get(ids[i]!) ?? 0) + (deltas[i + 1] ?? 0) / 1000);
  const categories = new Map<string, number>();
  const functions = new Map<string, { fn: string; where: string; ms: number }>();
  let sampled = 0;
  for (const [id, ms] of selfMs) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    sampled += ms;
    const { functionName, url, lineNumber } = node.callFrame;
    const category = categoryOf(url, functionName);
    categories.set(category, (categories.get(category) ?? 0) + ms);
    const where = url ? `${url.replace(/^file:\/\/.*?\/(src|bench|node_modules)\//, '$1/')}:${lineNumber + 1}` : '';
    const key = `${functionName}|${where}`;
    const f = functions.get(key) ?? { fn: functionName || '(anonymous)', where, ms: 0 };
    f.ms += ms;
    functions.set(key, f);
  }
  return {
    sampledMs: round1(sampled),
    categories: [...categories].map(([category, ms]) => ({ category, ms: round2(ms / checks) })).sort((a, b) => b.ms - a.ms),
    functions: [...functions.values()].sort((a, b) => b.ms - a.ms).slice(0, 12).map((f) => ({ ...f, ms: round2(f.ms / checks) })),
  };
}

// ---------------------------------------------------------------------------------------------
// Report

interface Combined {
  kind: Kind;
  rounds: RunResult[];
  checks: number;
  perSecond: number;
  steadyPerSecond: number | undefined;
  seconds: number;
  serviceMsPerCheck: number;
  dbMsPerCheck: number;
  totalMsPerCheck: number;
  meanInFlight: number;
  otherCores: number;
  /** Rounds that failed their checks: their figures mean nothing. */
  failed: number;
}

/** Medians over the rounds of each kind. */
function combine(runs: RunResult[]): Combined[] {
  const kinds: Kind[] = ['provider alone', 'queue, server worker', 'queue, sample --wait'];
  return kinds.flatMap((kind) => {
    const rounds = runs.filter((r) => r.kind === kind);
    if (rounds.length === 0) return [];
    const med = (f: (r: RunResult) => number) => round2(median(rounds.map(f)));
    const steady = rounds.map((r) => r.steadyPerSecond).filter((x): x is number => x !== undefined);
    return [
      {
        kind,
        rounds,
        checks: rounds[0]!.checks,
        perSecond: round1(median(rounds.map((r) => r.perSecond))),
        steadyPerSecond: steady.length ? round1(median(steady)) : undefined,
        seconds: med((r) => r.seconds),
        serviceMsPerCheck: med((r) => r.serviceMsPerCheck),
        dbMsPerCheck: med((r) => r.dbMsPerCheck),
        totalMsPerCheck: med((r) => r.totalMsPerCheck),
        meanInFlight: med((r) => r.fake.meanInFlight),
        otherCores: med((r) => r.cpu.otherCores),
        failed: rounds.filter((r) => r.problems.length > 0).length,
      },
    ];
  });
}

interface Verdict {
  target: string;
  met: boolean;
  detail: string;
}

function verdicts(combined: Combined[]): Verdict[] {
  const alone = combined.find((c) => c.kind === 'provider alone');
  const out: Verdict[] = [];
  const failedNote = (c: Combined) => (c.failed + (alone?.failed ?? 0) > 0 ? `FAILED: ${c.failed + (alone?.failed ?? 0)} run(s) failed their checks (see above), so this is not met; ` : '');
  for (const c of combined.filter((x) => x.kind !== 'provider alone')) {
    const ok = c.failed + (alone?.failed ?? 0) === 0;
    out.push({
      target: `${c.kind}: at least ${TARGETS.checksPerSecond} checks/s`,
      met: ok && c.perSecond >= TARGETS.checksPerSecond,
      detail: `${failedNote(c)}${c.perSecond} checks/s (${round1((c.perSecond / TARGETS.checksPerSecond) * 100)}% of the target; the provider alone ${alone?.perSecond ?? '?'}/s, ideal ${round1(inFlightCap / (settings.delayMs / 1000))}/s)`,
    });
    const outside = alone ? round2(c.totalMsPerCheck - alone.totalMsPerCheck) : c.totalMsPerCheck;
    out.push({
      target: `${c.kind}: at most ${TARGETS.cpuMsPerCheck} ms of CPU per check outside the provider call`,
      met: ok && outside <= TARGETS.cpuMsPerCheck,
      detail:
        `${failedNote(c)}${outside} ms = ${c.totalMsPerCheck} ms (service ${c.serviceMsPerCheck} + database ${c.dbMsPerCheck}) less the provider alone's ${alone?.totalMsPerCheck ?? '?'} ms per search` +
        `${outside > TARGETS.cpuMsPerCheck ? ` (${round1((outside / TARGETS.cpuMsPerCheck - 1) * 100)}% over)` : ''}; the service's part alone: ${alone ? round2(c.serviceMsPerCheck - alone.serviceMsPerCheck) : c.serviceMsPerCheck} ms`,
    });
  }
  return out;
}

function resultsTable(combined: Combined[]): string {
  const alone = combined.find((c) => c.kind === 'provider alone');
  return table(
    ['run', 'checks', 'seconds', 'checks/s', 'by round', 'steady/s', 'of provider alone', 'in flight at provider', 'service CPU ms/check', 'db CPU ms/check', 'total ms/check', 'outside provider ms/check', 'other cores'],
    combined.map((c) => [
      c.kind,
      c.checks,
      c.seconds,
      c.perSecond,
      c.rounds.map((r) => r.perSecond).join(' / '),
      c.steadyPerSecond ?? '-',
      alone ? `${round1((c.perSecond / alone.perSecond) * 100)}%` : '-',
      c.meanInFlight,
      c.serviceMsPerCheck,
      c.dbMsPerCheck,
      c.totalMsPerCheck,
      c.kind === 'provider alone' || !alone ? '-' : round2(c.totalMsPerCheck - alone.totalMsPerCheck),
      c.otherCores,
    ]),
  );
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const code = codeVersion();
  const loads: Record<string, string> = { start: loadavg() };
  const perCycle = ENGINES.length * settings.samples;
  const checks = Math.ceil(settings.checks / perCycle) * perCycle;
  log(`sampling bench: ${code}; Node ${process.version}; load average ${loads.start}`);
  log(
    `  ${checks} checks a run (${checks / perCycle} prompts x ${ENGINES.length} engines (SerpApi) x ${settings.samples} samples); provider answers after ${settings.delayMs} ms; ` +
      `SIGHTLINE_SAMPLER_CONCURRENCY ${settings.concurrency}, SIGHTLINE_PROVIDER_CONCURRENCY ${settings.providerConcurrency}: ${inFlightCap} in flight at most, ideal ${round1(inFlightCap / (settings.delayMs / 1000))} checks/s; ` +
      `pool ${settings.pool}; ${settings.rounds} round(s) of ${settings.modes.map((m) => (m === 'server' ? 'server worker' : 'sample --wait')).join(', ')} and the provider alone`,
  );
  const fake = await startFake(settings.delayMs);
  let target: Target | undefined;
  let profile: ProfileResult | undefined;
  try {
    target = await openTarget();
    log(`  ${target.label}: ${target.where}; fake SerpApi pid ${fake.pid} at ${fake.origin}`);
    const db = target.database.db;
    const { id: workspaceId } = await createWorkspace(db, { name: 'Sampling bench', plan: 'enterprise' });
    await updateWorkspace(db, workspaceId, { dailyCeilingUsd: 1e6 });

    if (settings.warmupChecks > 0) {
      log(`warm-up (${settings.warmupChecks} checks, not counted):`);
      await queueRun(target, fake, workspaceId, 'server', 0, settings.warmupChecks);
      await providerAlone(target, fake, settings.warmupChecks, 0);
      results.length = 0;
    }

    const kinds: (Mode | 'alone')[] = ['alone', ...settings.modes];
    log(`runs (load average ${loadavg()}):`);
    for (let round = 1; round <= settings.rounds; round++) {
      const shift = (round - 1) % kinds.length;
      for (const kind of [...kinds.slice(shift), ...kinds.slice(0, shift)]) {
        results.push(kind === 'alone' ? await providerAlone(target, fake, checks, round) : await queueRun(target, fake, workspaceId, kind, round, checks));
      }
    }
    loads.afterRuns = loadavg();
    if (settings.profile) {
      log('profile (one more server-worker run on a pool that times every statement and transaction; not in the figures above):');
      profile = await profileRun(target, fake, workspaceId);
    }
  } finally {
    await target?.close();
    const stopped = await stop(fake.child);
    if (stopped.killed) console.warn('warning: the fake SerpApi did not exit on SIGTERM; killed');
  }
  loads.end = loadavg();

  const combined = combine(results);
  const verdictList = verdicts(combined);
  log(`\n=== sampling throughput; ${code}; Node ${process.version}; ${target.label}`);
  log(`load average (1/5/15 min): start ${loads.start}; after the runs ${loads.afterRuns ?? '-'}; end ${loads.end}`);
  log(
    `${checks} checks a run; the provider answers after ${settings.delayMs} ms; ${inFlightCap} in flight at most (ideal ${round1(inFlightCap / (settings.delayMs / 1000))}/s). ` +
      `Median of ${settings.rounds} round(s). CPU: this process ("service") and the database's processes over the run, per check; "outside provider" = total less the provider alone's per search.\n`,
  );
  log(resultsTable(combined));
  if (profile) {
    const p = profile;
    log(
      `\nProfile: one more server-worker run, ${p.run.checks} checks in ${p.run.seconds} s = ${p.run.perSecond}/s, on a pool that times every statement (its own figures; the CPU profiler and the timing slow it). ` +
        `Pool of ${p.pool.size}: ${p.pool.meanBusy} connections busy and ${p.pool.meanWaiting} callers waiting on average, ${p.pool.maxWaiting} waiting at most.\n`,
    );
    log(
      table(
        ['step', 'transactions', 'statements', 'statement ms/check', 'share', 'mean transaction ms', 'first statement ms (lock wait)', 'held after it ms', 'held, share of the run', 'its first statement waits for'],
        p.steps.map((s) => [`${s.step} (${STEP_FILES[s.step]})`, s.transactions, s.statements, s.statementMsPerCheck, `${round1(s.share * 100)}%`, s.meanTransactionMs, s.meanFirstStatementMs, s.meanHeldMs, `${round1(s.heldShareOfRun * 100)}%`, STEP_LOCKS[s.step]]),
      ),
    );
    log('\nThe statements that took longest (summed, lock waits included):\n');
    log(table(['step', 'statement', 'count', 'total ms', 'mean ms', 'ms/check'], p.statements.slice(0, 15).map((s) => [s.step, s.statement, s.count, s.ms, round2(s.ms / s.count), round2(s.ms / p.run.checks)])));
    if (p.cpu) {
      log(`\nThis process's main thread over that run (node:inspector, 0.5 ms sampling; ${p.cpu.sampledMs} ms not idle): self time per check by where the code lives, and the busiest functions:\n`);
      log(table(['where', 'ms/check'], p.cpu.categories.slice(0, 12).map((c) => [c.category, c.ms])));
      log('');
      log(table(['function', 'at', 'ms/check'], p.cpu.functions.map((f) => [f.fn, f.where, f.ms])));
    }
  }
  log('\nTargets:\n');
  log(table(['target', 'met', 'figures'], verdictList.map((v) => [v.target, v.met ? 'met' : 'NOT MET', v.detail])));
  log(`\nwhole run: ${sinceStart()} s`);
  writeJsonOut({ settings: { ...settings, checksPerRun: checks, inFlightCap }, targets: TARGETS, code, node: process.version, database: target.label, loads, runs: results, combined, profile, verdicts: verdictList, problems });
  if (problems.length > 0) {
    console.error(`\nFAILED: ${problems.length} problem(s) with what the queue did:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    process.exitCode = 1;
  }
}

await main();
