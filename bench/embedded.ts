/**
 * The service on its embedded PostgreSQL 18 beside the same service on a PostgreSQL 15 server and a
 * bare Fastify server, all measured in one run. See bench/README.md ("Embedded PostgreSQL against
 * the server").
 *
 *   node bench/embedded.ts
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/embedded.ts   # the server to compare with
 *
 * 1. Start-up (bench/startup.ts, `runStartupBench`): `node src/server.ts` on a fresh data directory
 *    (initdb, migrate, demo seed) and on the same directory after a clean stop, --startup-reps times
 *    each (median), beside the bare Fastify server's start.
 * 2. Three servers, each its own process, started one after the other and left running:
 *    - bare Fastify (bench/lib/bare-server.ts), `GET /bare`;
 *    - Sightline on the embedded PostgreSQL (`SIGHTLINE_DATA_DIR` a fresh directory under .tmp/);
 *    - Sightline on the PostgreSQL server (`DATABASE_URL` a fresh scratch database
 *      `sightline_bench_embedded_<pid>`, dropped at the end);
 *    both Sightline servers with `SIGHTLINE_DEMO=1`, so each seeds the demo on its empty database.
 *    A read key with a limit of 1,000,000 a minute is made in each database with `createApiKey`.
 * 3. Reads, each measured on both Sightline servers back to back, under --low (10) and then --high
 *    (100) keep-alive connections (bench/lib/load.ts, its own process; 10 s per request, after which
 *    it counts as a timeout): timeseries 28 days; citations 28 days; timeseries with `engineId` and
 *    `branded=true`. `GET /bare` on the bare server at each connection count is the baseline.
 *    --rounds (3) rounds at each connection count; which target goes first alternates from read to
 *    read and from round to round, so a drift in the machine's load falls on both alike. A row
 *    combines its rounds: req/s, p50 and p99 are the median of the rounds' (so one round disturbed
 *    by other work on the machine does not decide it; the mean of two). The CPU used by everything outside the bench (its processes,
 *    the servers, the embedded cluster, the server's backends on the scratch database) is measured
 *    during each measurement from /proc: "other work".
 * 4. Memory after the load: VmRSS of each server process; for the embedded target, the summed VmRSS
 *    (and PSS) of the postmaster and its children; for the server target, of the server's backends
 *    serving the scratch database (the server's shared processes serve every database, so they are
 *    left out).
 * 5. The issue's targets, reported as met or not met.
 *
 * Settings (argument, else BENCH_* variable): --duration-ms (5000) and --requests (1000000): each
 * measurement stops at whichever comes first; --warmup-ms (1000), --warmup-requests (2000);
 * --low (10), --high (100) connections; --rounds (3); --prewarm-ms (3000: before any measurement,
 * each read is run this long on each Sightline server, unmeasured, so JIT and caches are warm);
 * --startup-reps (3); --log-level (info, as `npm start`);
 * --json-out=FILE. DATABASE_URL names the server to make the scratch database on
 * (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { openEmbedded, openPostgres, type Database } from '../src/db/database.ts';
import { benchDataDir, childrenOf, familyMemory, memoryOfPids, pidsMatching, postmasterPid, removeDataDir, stopLeftoverPostmaster, type FamilyMemory } from './lib/cluster.ts';
import { freePort, memoryOf, round1, runLoadProcess, setting, stop, stringArg, table, writeJsonOut } from './lib/common.ts';
import { busiestOthers, cpuOf, cpuSnapshot, cpuSplit } from './lib/contention.ts';
import type { LoadResult } from './lib/load.ts';
import { getJson, summarise } from './lib/responses.ts';
import { codeVersion, createScratchServerDatabase, loadavg, median, type ScratchServerDatabase } from './lib/scratch-db.ts';
import { BARE_SCRIPT, formatStartupBench, logTail, runStartupBench, SERVER_SCRIPT, serviceEnv, startAndWait, warningsIn, type StartupBenchResult } from './startup.ts';

const settings = {
  durationMs: setting('duration-ms', 5_000),
  requests: Math.max(1, Math.round(setting('requests', 1_000_000))),
  warmupMs: setting('warmup-ms', 1_000),
  warmupRequests: Math.round(setting('warmup-requests', 2_000)),
  low: Math.max(1, Math.round(setting('low', 10))),
  high: Math.max(1, Math.round(setting('high', 100))),
  rounds: Math.max(1, Math.round(setting('rounds', 3))),
  prewarmMs: setting('prewarm-ms', 3_000),
  startupReps: Math.max(1, Math.round(setting('startup-reps', 3))),
  logLevel: stringArg('log-level') ?? process.env.BENCH_LOG_LEVEL ?? 'info',
  serverUrl: process.env.DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres',
};
const log = (line: string) => console.log(line);

/** The issue's targets. */
const TARGETS = { withinRatio: 0.1, firstStartMs: 5_000, restartMs: 2_000 };

export type TargetKind = 'bare' | 'embedded' | 'server';

interface Target {
  kind: TargetKind;
  label: string;
  child: ChildProcess;
  pid: number;
  port: number;
  logFile: string;
  startMs: number;
  headers: Record<string, string>;
  /** Sightline only: the demo project and the engine used for the engine-filtered read. */
  projectId?: string;
  engine?: { id: string; key: string };
}

interface Read {
  name: string;
  path: (t: Target) => string;
}

export interface Measurement {
  connections: number;
  round: number;
  read: string;
  target: TargetKind;
  label: string;
  url: string;
  result: LoadResult;
  /** Load average just after. */
  load: string;
  /**
   * Cores busy during the measurement: the whole machine; the server process measured; its
   * database's processes (the embedded cluster, or the server's backends on the scratch database);
   * and everything outside this bench's processes.
   */
  machineCores: number;
  serviceCores: number;
  databaseCores: number;
  otherCores: number;
  /** The busiest processes outside this bench during the measurement. */
  busiestOthers: string[];
}

/** The rounds of one read on one target at one connection count, combined. */
export interface Combined {
  connections: number;
  read: string;
  target: TargetKind;
  label: string;
  rounds: Measurement[];
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  timeouts: number;
  serviceCores: number;
  databaseCores: number;
  otherCores: number;
}

const READS: Read[] = [
  { name: 'timeseries 28 d', path: (t) => `/api/v1/projects/${t.projectId}/visibility/timeseries` },
  { name: 'citations 28 d', path: (t) => `/api/v1/projects/${t.projectId}/citations` },
  { name: 'timeseries 28 d, engineId + branded=true', path: (t) => `/api/v1/projects/${t.projectId}/visibility/timeseries?engineId=${t.engine?.id}&branded=true` },
];

/** A high-limit read key and the demo project, made directly in the target's database. */
async function prepareSightline(target: Target, database: Database): Promise<void> {
  try {
    const workspace = await database.db.selectFrom('workspaces').select('id').where('name', '=', 'Demo workspace').executeTakeFirstOrThrow();
    const project = await database.db.selectFrom('projects').select('id').where('workspace_id', '=', workspace.id).executeTakeFirstOrThrow();
    const { key } = await createApiKey(database.db, { workspaceId: workspace.id, scopes: ['read'], rateLimit: 1_000_000, name: 'bench read' });
    target.headers = { authorization: `Bearer ${key}` };
    target.projectId = project.id;
  } finally {
    await database.close();
  }
  const engines = ((await getJson(`http://127.0.0.1:${target.port}/api/v1/engines`, target.headers)).body as { data: { engines: { id: string; key: string }[] } }).data.engines;
  const engine = engines.find((e) => e.key === 'chatgpt') ?? engines[0];
  if (!engine) throw new Error(`${target.label}: GET /api/v1/engines listed no engine`);
  target.engine = { id: engine.id, key: engine.key };
}

async function startTarget(kind: TargetKind, label: string, script: string, env: NodeJS.ProcessEnv, readyPath: string, logFile: string, children: Set<ChildProcess>): Promise<Target> {
  const port = Number(env.PORT);
  const started = await startAndWait(script, env, `http://127.0.0.1:${port}${readyPath}`, logFile, children);
  const pid = started.child.pid;
  if (pid === undefined) throw new Error(`${label}: no pid`);
  if (kind !== 'bare' && !/^\s*read:\s+sl_/m.test(logTail(logFile, 200))) {
    throw new Error(`${label}: the server did not seed the demo (no "read: sl_..." line in its output):\n${logTail(logFile)}`);
  }
  log(`  ${label}: pid ${pid}, port ${port}, first 200 after ${started.startMs} ms`);
  return { kind, label, child: started.child, pid, port, logFile, startMs: started.startMs, headers: {} };
}

/** This bench's processes: itself (and the load generators it has reaped), the servers, the embedded cluster, the server's backends on the scratch database. */
let ourPids: () => number[] = () => [process.pid];
/** The database processes of a target. */
let databasePids: (kind: TargetKind) => number[] = () => [];

async function measure(target: Target, connections: number, round: number, read: string, path: string): Promise<Measurement> {
  const url = `http://127.0.0.1:${target.port}${path}`;
  const before = cpuSnapshot(ourPids(), true);
  const result = await runLoadProcess({
    url,
    headers: target.headers,
    concurrency: connections,
    requests: settings.requests,
    durationMs: settings.durationMs,
    warmupMs: settings.warmupMs,
    warmupRequests: settings.warmupRequests,
  });
  const ours = ourPids();
  const after = cpuSnapshot(ours, true);
  const cpu = cpuSplit(before, after);
  // Our processes and their children (the load generator is a child of this process).
  const others = busiestOthers(before, after, [...ours, ...ours.flatMap((pid) => childrenOf(pid))]).map((o) => `${o.name}(${o.pid}) ${o.cores}`);
  const serviceCores = cpuOf(before, after, [target.pid]);
  const databaseCores = cpuOf(before, after, databasePids(target.kind));
  const failed = result.non200 + result.errors;
  log(
    `  ${String(connections).padStart(3)} conn  round ${round}  ${read.padEnd(42)} ${target.label.padEnd(24)} ${String(result.rps).padStart(6)} req/s  p50 ${String(result.p50Ms).padStart(7)} ms  p99 ${String(result.p99Ms).padStart(7)} ms  cores: service ${serviceCores}, db ${databaseCores}, other work ${cpu.otherCores}${cpu.otherCores >= 0.1 && others.length ? ` (${others.join(', ')})` : ''}` +
      `${failed ? `  FAILED ${failed} (${result.timeouts} timeouts; ${result.firstError ?? ''})` : ''}`,
  );
  return { connections, round, read, target: target.kind, label: target.label, url, result, load: loadavg(), machineCores: cpu.machineCores, serviceCores, databaseCores, otherCores: cpu.otherCores, busiestOthers: others };
}

function combine(measurements: Measurement[]): Combined[] {
  const groups = new Map<string, Measurement[]>();
  for (const m of measurements) {
    const key = `${m.connections}|${m.read}|${m.target}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((rounds) => {
    const first = rounds[0]!;
    const requests = rounds.reduce((a, m) => a + m.result.requests, 0);
    return {
      connections: first.connections,
      read: first.read,
      target: first.target,
      label: first.label,
      rounds,
      requests,
      rps: Math.round(median(rounds.map((m) => m.result.rps))),
      p50Ms: round2(median(rounds.map((m) => m.result.p50Ms))),
      p99Ms: round2(median(rounds.map((m) => m.result.p99Ms))),
      failed: rounds.reduce((a, m) => a + m.result.non200 + m.result.errors, 0),
      timeouts: rounds.reduce((a, m) => a + m.result.timeouts, 0),
      serviceCores: round2(rounds.reduce((a, m) => a + m.serviceCores, 0) / rounds.length),
      databaseCores: round2(rounds.reduce((a, m) => a + m.databaseCores, 0) / rounds.length),
      otherCores: round2(rounds.reduce((a, m) => a + m.otherCores, 0) / rounds.length),
    };
  });
}

export interface MemoryRow {
  label: string;
  serviceRssMiB: number;
  servicePeakMiB: number;
  database?: FamilyMemory;
  databaseNote: string;
}

export interface Verdict {
  target: string;
  met: boolean;
  detail: string;
}

const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const round2 = (n: number) => Math.round(n * 100) / 100;

function verdicts(combined: Combined[], startup: StartupBenchResult): Verdict[] {
  const out: Verdict[] = [];
  const find = (connections: number, read: string, target: TargetKind) => combined.find((c) => c.connections === connections && c.read === read && c.target === target);
  for (const connections of [settings.low, settings.high]) {
    for (const read of READS) {
      const e = find(connections, read.name, 'embedded');
      const s = find(connections, read.name, 'server');
      if (!e || !s) continue;
      const rps = ratio(e.rps, s.rps);
      const p50 = ratio(e.p50Ms, s.p50Ms);
      out.push({
        target: `${read.name}, ${connections} connections: embedded within 10% of the server`,
        met: rps >= 1 - TARGETS.withinRatio && p50 <= 1 + TARGETS.withinRatio,
        detail: `req/s ${e.rps} vs ${s.rps} (${rps}x), p50 ${e.p50Ms} vs ${s.p50Ms} ms (${p50}x)`,
      });
    }
  }
  const high = combined.filter((c) => c.connections === settings.high && c.target !== 'bare');
  const embeddedTimeouts = high.filter((c) => c.target === 'embedded').reduce((a, c) => a + c.timeouts, 0);
  out.push({
    target: `no timeout under ${settings.high} connections (embedded)`,
    met: embeddedTimeouts === 0,
    detail: `${embeddedTimeouts} timeouts on the embedded target; ${high.reduce((a, c) => a + c.timeouts, 0)} timeouts and ${high.reduce((a, c) => a + c.failed, 0)} failures on both Sightline targets`,
  });
  out.push({
    target: `first start under ${TARGETS.firstStartMs / 1000} s (median of ${startup.reps})`,
    met: startup.firstMedianMs < TARGETS.firstStartMs,
    detail: `${startup.firstMedianMs} ms (runs ${startup.first.map((r) => r.startMs).join(', ')} ms)`,
  });
  out.push({
    target: `restart under ${TARGETS.restartMs / 1000} s (median of ${startup.reps})`,
    met: startup.secondMedianMs < TARGETS.restartMs,
    detail: `${startup.secondMedianMs} ms (runs ${startup.second.map((r) => r.startMs).join(', ')} ms)`,
  });
  return out;
}

function throughputTable(combined: Combined[]): string {
  const rows: (string | number)[][] = [];
  const find = (connections: number, read: string, target: TargetKind) => combined.find((c) => c.connections === connections && c.read === read && c.target === target);
  for (const connections of [settings.low, settings.high]) {
    const bare = find(connections, 'GET /bare', 'bare');
    const row = (c: Combined, vsServer: string, vsServerP50: string) => [
      connections,
      c.read,
      c.label,
      c.requests,
      c.rps,
      c.rounds.map((m) => m.result.rps).join(' / '),
      c.p50Ms,
      c.p99Ms,
      c.failed,
      c.timeouts,
      bare ? ratio(bare.rps, c.rps) : '-',
      vsServer,
      vsServerP50,
      c.serviceCores,
      c.target === 'bare' ? '-' : c.databaseCores,
      c.target === 'bare' ? '-' : round2((c.databaseCores * 1000) / c.rps),
      c.otherCores,
    ];
    if (bare) rows.push(row(bare, '', ''));
    for (const read of READS) {
      const e = find(connections, read.name, 'embedded');
      const s = find(connections, read.name, 'server');
      if (e) rows.push(row(e, s ? String(ratio(e.rps, s.rps)) : '-', s ? String(ratio(e.p50Ms, s.p50Ms)) : '-'));
      if (s) rows.push(row(s, '1', '1'));
    }
  }
  return table(['conn', 'read', 'target', 'requests', 'req/s', 'req/s by round', 'p50 ms', 'p99 ms', 'failed', 'timeouts', 'bare/this req/s', 'req/s vs server', 'p50 vs server', 'service cores', 'db cores', 'db CPU ms/req', 'other work cores'], rows);
}

export interface EmbeddedBenchResult {
  settings: typeof settings;
  code: string;
  node: string;
  loads: Record<string, string>;
  startup: StartupBenchResult;
  measurements: Measurement[];
  combined: Combined[];
  memory: MemoryRow[];
  verdicts: Verdict[];
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const code = codeVersion();
  const loads: Record<string, string> = { start: loadavg() };
  log(`embedded PostgreSQL bench: ${code}; Node ${process.version}; load average ${loads.start}`);
  log(
    `  each measurement: up to ${settings.requests} requests or ${settings.durationMs / 1000} s after a ${settings.warmupMs / 1000} s / ${settings.warmupRequests}-request warm-up; ` +
      `${settings.low} then ${settings.high} keep-alive connections; server log level ${settings.logLevel}`,
  );

  // 1. Start-up, before anything else runs.
  const startup = await runStartupBench(log, { reps: settings.startupReps, loadRequests: 0, concurrency: settings.low, bare: true });
  loads.afterStartup = loadavg();

  // 2. The three servers.
  const work = benchDataDir('embedded');
  const dataDir = join(work, 'data');
  const children = new Set<ChildProcess>();
  const targets: Target[] = [];
  let scratch: ScratchServerDatabase | undefined;
  const measurements: Measurement[] = [];
  const memory: MemoryRow[] = [];
  const leftovers: string[] = [];
  try {
    scratch = await createScratchServerDatabase('embedded', settings.serverUrl);
    if (!scratch) throw new Error('no PostgreSQL server URL');
    log(`servers (embedded data dir ${dataDir}; ${scratch.where}):`);
    const logLevel = { LOG_LEVEL: settings.logLevel };
    const bare = await startTarget('bare', 'bare Fastify', BARE_SCRIPT, serviceEnv({ PORT: String(await freePort()) }), '/bare', join(work, 'bare.log'), children);
    const embedded = await startTarget(
      'embedded',
      'embedded PostgreSQL 18',
      SERVER_SCRIPT,
      serviceEnv({ ...logLevel, PORT: String(await freePort()), SIGHTLINE_DATA_DIR: dataDir, SIGHTLINE_DEMO: '1' }),
      '/api/v1/openapi.json',
      join(work, 'embedded.log'),
      children,
    );
    const server = await startTarget(
      'server',
      scratch.label,
      SERVER_SCRIPT,
      serviceEnv({ ...logLevel, PORT: String(await freePort()), DATABASE_URL: scratch.url, SIGHTLINE_DEMO: '1' }),
      '/api/v1/openapi.json',
      join(work, 'server.log'),
      children,
    );
    targets.push(bare, embedded, server);
    await prepareSightline(embedded, await openEmbedded(dataDir));
    await prepareSightline(server, openPostgres(scratch.url, 2));
    if (embedded.engine?.key !== server.engine?.key) throw new Error(`the targets picked different engines: ${embedded.engine?.key} and ${server.engine?.key}`);
    log(`  engine for the engineId read: ${embedded.engine?.key}`);

    // One request of each read on each target first: a benchmark of error responses would be worthless.
    for (const read of READS) {
      for (const t of [embedded, server]) {
        const { body } = await getJson(`http://127.0.0.1:${t.port}${read.path(t)}`, t.headers);
        log(`  ${read.name} on ${t.label}: ${summarise(body)}`);
      }
    }

    // 3. The reads.
    loads.beforeLoad = loadavg();
    log(`reads (load average ${loads.beforeLoad}):`);
    const pmPid = postmasterPid(dataDir);
    const backendPattern = new RegExp(`^postgres: (\\S+: )?\\S+ ${scratch.name} `);
    databasePids = (kind) => (kind === 'embedded' ? (pmPid === undefined ? [] : [pmPid, ...childrenOf(pmPid)]) : kind === 'server' ? pidsMatching(backendPattern) : []);
    ourPids = () => [process.pid, ...targets.map((t) => t.pid), ...databasePids('embedded'), ...databasePids('server')];
    if (settings.prewarmMs > 0) {
      log(`  pre-warming: each read for ${settings.prewarmMs / 1000} s on each Sightline server at ${settings.low} connections (not measured)`);
      for (const read of READS) {
        for (const t of [embedded, server]) {
          await runLoadProcess({ url: `http://127.0.0.1:${t.port}${read.path(t)}`, headers: t.headers, concurrency: settings.low, requests: settings.requests, durationMs: settings.prewarmMs, warmupMs: 0, warmupRequests: 0 });
        }
      }
    }
    for (const connections of [settings.low, settings.high]) {
      for (let round = 1; round <= settings.rounds; round++) {
        measurements.push(await measure(bare, connections, round, 'GET /bare', '/bare'));
        for (const [i, read] of READS.entries()) {
          const order = (i + round) % 2 === 1 ? [embedded, server] : [server, embedded];
          for (const t of order) measurements.push(await measure(t, connections, round, read.name, read.path(t)));
        }
      }
    }
    loads.afterLoad = loadavg();

    // 4. Memory after the load.
    const pm = postmasterPid(dataDir);
    for (const t of targets) {
      const m = memoryOf(t.pid);
      const row: MemoryRow = { label: t.label, serviceRssMiB: m.rssMiB, servicePeakMiB: m.peakMiB, databaseNote: '-' };
      if (t.kind === 'embedded') {
        if (pm !== undefined) {
          row.database = familyMemory(pm);
          row.databaseNote = `postmaster ${pm} and its children`;
        } else {
          row.databaseNote = 'no postmaster found';
        }
      } else if (t.kind === 'server' && scratch) {
        row.database = memoryOfPids(pidsMatching(backendPattern));
        row.databaseNote = `the server's backends on ${scratch.name} (shared server processes not counted)`;
      }
      memory.push(row);
    }
  } finally {
    for (const t of targets) {
      const stopped = await stop(t.child);
      if (stopped.killed) console.warn(`warning: ${t.label}: did not exit within 10 s of SIGTERM; killed`);
      else if (stopped.code !== 0) console.warn(`warning: ${t.label}: exit code ${stopped.code} after SIGTERM`);
      const warnings = warningsIn(t.logFile, 0);
      if (warnings.count > 0) console.warn(`warning: ${t.label}: ${warnings.count} warn/error log lines, first: ${warnings.first ?? ''}`);
    }
    for (const child of children) await stop(child);
    if (await stopLeftoverPostmaster(dataDir, 'embedded target')) leftovers.push(dataDir);
    await scratch?.drop().catch((error: unknown) => console.warn(`warning: could not drop ${scratch?.name}: ${String(error)}`));
    removeDataDir(work);
  }
  loads.end = loadavg();

  // 5. Report.
  const combined = combine(measurements);
  const verdictList = verdicts(combined, startup);
  log(`\n=== embedded PostgreSQL 18 vs PostgreSQL 15 server; ${code}; Node ${process.version}`);
  log(`load average (1/5/15 min): start ${loads.start}; after start-up ${loads.afterStartup}; before the reads ${loads.beforeLoad}; after the reads ${loads.afterLoad}; end ${loads.end}`);
  log(
    `\nReads: ${settings.rounds} round(s) of ${settings.durationMs / 1000} s (or ${settings.requests} requests) each after a ${settings.warmupMs / 1000} s warm-up; keep-alive connections; 10 s per request before it counts as a timeout.\n`,
  );
  log(throughputTable(combined));
  log('\nMemory after the reads (MiB; database RSS is summed VmRSS, which counts shared memory once per process; PSS splits it):\n');
  log(
    table(
      ['target', 'service RSS', 'service peak', 'database processes', 'database RSS', 'database PSS', 'database processes counted'],
      memory.map((m) => [m.label, m.serviceRssMiB, m.servicePeakMiB, m.database?.processes ?? '-', m.database?.rssMiB ?? '-', m.database?.pssMiB ?? '-', m.databaseNote]),
    ),
  );
  log(`\nStart-up (spawn of node src/server.ts to the first 200 of GET /api/v1/openapi.json, embedded PostgreSQL):\n`);
  log(formatStartupBench(startup));
  log('\nTargets:\n');
  log(table(['target', 'met', 'figures'], verdictList.map((v) => [v.target, v.met ? 'met' : 'NOT MET', v.detail])));
  if (leftovers.length > 0) log(`\nwarning: an embedded postmaster was left running for ${leftovers.join(', ')} (stopped by the bench)`);
  log(`\nwhole run: ${round1((performance.now() - t0) / 1000)} s`);
  const result: EmbeddedBenchResult = { settings, code, node: process.version, loads, startup, measurements, combined, memory, verdicts: verdictList };
  writeJsonOut(result);
}

if (import.meta.main) await main();
