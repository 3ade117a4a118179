/**
 * Start-up time and resident memory of the service as `npm start` runs it (`node src/server.ts`,
 * spawned directly so the measured pid is the server's, not npm's) on the embedded PostgreSQL,
 * beside a bare Fastify server (bench/lib/bare-server.ts) measured in the same run. See
 * bench/README.md. bench/embedded.ts calls `runStartupBench` for its start-up rows.
 *
 *   node bench/startup.ts
 *   --startup-reps=N / BENCH_STARTUP_REPS (default 3): first starts, each on a fresh data directory
 *   (initdb, migrate, demo seed), each followed by a restart on the same directory after a clean
 *   stop; medians are reported.
 *   --startup-load-requests=N / BENCH_STARTUP_LOAD_REQUESTS (default 3000): the load before the
 *   second RSS reading (last restart only); concurrency from --concurrency / BENCH_CONCURRENCY (16).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { openEmbedded } from '../src/db/database.ts';
import { benchDataDir, familyMemory, postmasterPid, removeDataDir, stopLeftoverPostmaster, type FamilyMemory } from './lib/cluster.ts';
import {
  BENCH_DIR,
  ROOT,
  freePort,
  memoryOf,
  probe,
  round1,
  runLoadProcess,
  setting,
  stop,
  table,
  writeJsonOut,
} from './lib/common.ts';
import type { LoadResult } from './lib/load.ts';
import { median } from './lib/scratch-db.ts';

export const SERVER_SCRIPT = join(ROOT, 'src', 'server.ts');
export const BARE_SCRIPT = join(BENCH_DIR, 'lib', 'bare-server.ts');
const POLL_MS = 20;
const START_TIMEOUT_MS = 60_000;

export interface StartRun {
  name: string;
  /** Spawn to the first 200 of the probed path, in ms. */
  startMs: number;
  probes: number;
  rssAfterStartMiB: number;
  /** The embedded postmaster and its children just after the first 200 (Sightline runs only). */
  clusterAfterStart?: FamilyMemory;
  /** After the load, when one was run. */
  rssAfterLoadMiB?: number;
  clusterAfterLoad?: FamilyMemory;
  peakRssMiB: number;
  load?: LoadResult;
  /** SIGTERM to exit, in ms (for Sightline: including the embedded postmaster's stop). */
  stopMs: number;
  exitCode: number | null;
  /** Whether an embedded postmaster still ran after the server exited (it should not). */
  postmasterLeft?: boolean;
  /** Lines the server logged at warn level or above (pino JSON), and the first of them. */
  warnings: number;
  firstWarning?: string;
}

export interface StartupOptions {
  /** First starts (fresh data directory each) and restarts (the same directory after a clean stop). */
  reps: number;
  /** Requests before the second RSS reading, on the last restart; 0: no load. */
  loadRequests: number;
  concurrency: number;
  /** Also start the bare Fastify baseline. */
  bare: boolean;
}

export interface StartupBenchResult {
  loadRequests: number;
  concurrency: number;
  reps: number;
  bare?: StartRun;
  /** One per repetition, each on a fresh data directory: initdb, migrate, demo seed. */
  first: StartRun[];
  /** One per repetition, reopening the data directory of the first start after its clean stop. */
  second: StartRun[];
  firstMedianMs: number;
  secondMedianMs: number;
}

export function startupOptions(): StartupOptions {
  return {
    reps: Math.max(1, Math.round(setting('startup-reps', 3))),
    loadRequests: Math.max(0, Math.round(setting('startup-load-requests', 3_000))),
    concurrency: Math.max(1, Math.round(setting('concurrency', 16))),
    bare: true,
  };
}

export interface Started {
  child: ChildProcess;
  startMs: number;
  probes: number;
}

export function logTail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Spawns `script` with node and polls `url` every 20 ms until it answers 200. */
export async function startAndWait(script: string, env: NodeJS.ProcessEnv, url: string, logFile: string, children: Set<ChildProcess>): Promise<Started> {
  const fd = openSync(logFile, 'a');
  const t0 = performance.now();
  const child = spawn(process.execPath, [script], { cwd: ROOT, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  children.add(child);
  child.once('exit', () => children.delete(child));
  let probes = 0;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${script} exited (${child.exitCode ?? child.signalCode}) before answering:\n${logTail(logFile)}`);
    }
    const tick = performance.now();
    probes++;
    if ((await probe(url, 1_000)) === 200) return { child, startMs: round1(performance.now() - t0), probes };
    if (performance.now() - t0 > START_TIMEOUT_MS) {
      throw new Error(`${script} gave no 200 on ${url} within ${START_TIMEOUT_MS} ms:\n${logTail(logFile)}`);
    }
    await sleep(Math.max(0, POLL_MS - (performance.now() - tick)));
  }
}

/** Warn-or-worse lines in a pino JSON log. */
export function warningsIn(logFile: string, fromOffset: number): { count: number; first?: string } {
  const text = readFileSync(logFile, 'utf8').slice(fromOffset);
  let count = 0;
  let first: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
      if ((entry.level ?? 0) >= 40) {
        count++;
        first ??= `${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`.slice(0, 300);
      }
    } catch {
      // not a log line
    }
  }
  return first === undefined ? { count } : { count, first };
}

export function fileSize(file: string): number {
  try {
    return readFileSync(file).length;
  } catch {
    return 0;
  }
}

async function run(
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  readyPath: string,
  logFile: string,
  children: Set<ChildProcess>,
  load?: (port: number) => Promise<LoadResult>,
): Promise<StartRun> {
  const port = Number(env.PORT);
  const dataDir = env.SIGHTLINE_DATA_DIR && !env.DATABASE_URL ? env.SIGHTLINE_DATA_DIR : undefined;
  const logOffset = fileSize(logFile);
  const started = await startAndWait(script, env, `http://127.0.0.1:${port}${readyPath}`, logFile, children);
  const pid = started.child.pid;
  if (pid === undefined) throw new Error(`${name}: no pid`);
  const afterStart = memoryOf(pid);
  const postmaster = dataDir ? postmasterPid(dataDir) : undefined;
  const clusterAfterStart = postmaster ? familyMemory(postmaster) : undefined;
  let loadResult: LoadResult | undefined;
  let afterLoad: ReturnType<typeof memoryOf> | undefined;
  let clusterAfterLoad: FamilyMemory | undefined;
  if (load) {
    loadResult = await load(port);
    afterLoad = memoryOf(pid);
    if (postmaster) clusterAfterLoad = familyMemory(postmaster);
  }
  const peak = afterLoad?.peakMiB ?? afterStart.peakMiB;
  const stopped = await stop(started.child);
  if (stopped.killed) console.warn(`warning: ${name}: did not exit within 10 s of SIGTERM; killed`);
  // The server stops the embedded postmaster when it lets go of it last; one still running is a leak.
  const postmasterLeft = dataDir ? await stopLeftoverPostmaster(dataDir, name) : undefined;
  const warnings = warningsIn(logFile, logOffset);
  const result: StartRun = {
    name,
    startMs: started.startMs,
    probes: started.probes,
    rssAfterStartMiB: afterStart.rssMiB,
    peakRssMiB: peak,
    stopMs: stopped.ms,
    exitCode: stopped.code,
    warnings: warnings.count,
  };
  if (clusterAfterStart) result.clusterAfterStart = clusterAfterStart;
  if (afterLoad) result.rssAfterLoadMiB = afterLoad.rssMiB;
  if (clusterAfterLoad) result.clusterAfterLoad = clusterAfterLoad;
  if (loadResult) result.load = loadResult;
  if (postmasterLeft !== undefined) result.postmasterLeft = postmasterLeft;
  if (warnings.first !== undefined) result.firstWarning = warnings.first;
  return result;
}

/** The environment of `npm start` on a fresh machine: the embedded database, in-process rate limits. */
export function serviceEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  delete env.SIGHTLINE_PUBLIC_URL;
  delete env.LOG_LEVEL;
  return { ...env, HOST: '127.0.0.1', ...extra };
}

export async function runStartupBench(log: (line: string) => void = console.log, options: StartupOptions = startupOptions()): Promise<StartupBenchResult> {
  const { reps, loadRequests, concurrency } = options;
  const loadSpec = (url: string, headers: Record<string, string> = {}) => ({
    url,
    headers,
    concurrency,
    requests: loadRequests,
    durationMs: 10_000,
    warmupMs: 0,
    warmupRequests: 0,
  });
  log(
    `start-up: spawn to first 200 (polled every ${POLL_MS} ms), ${reps} first start(s) on a fresh data dir and as many restarts after a clean stop` +
      (loadRequests > 0 ? `; RSS after start and, on the last restart, after ${loadRequests} requests at concurrency ${concurrency}` : ''),
  );

  // Under .tmp/: the embedded postmaster's account must reach the data directories.
  const work = benchDataDir('startup');
  const children = new Set<ChildProcess>();
  const dataDirs: string[] = [];
  try {
    let bare: StartRun | undefined;
    if (options.bare) {
      log('  bare Fastify server ...');
      bare = await run(
        'bare Fastify',
        BARE_SCRIPT,
        serviceEnv({ PORT: String(await freePort()) }),
        '/bare',
        join(work, 'bare.log'),
        children,
        loadRequests > 0 ? (port) => runLoadProcess(loadSpec(`http://127.0.0.1:${port}/bare`)) : undefined,
      );
    }

    const serverLog = join(work, 'server.log');
    const first: StartRun[] = [];
    const second: StartRun[] = [];
    for (let i = 1; i <= reps; i++) {
      const dataDir = join(work, `data-${i}`);
      dataDirs.push(dataDir);
      const env = async () => serviceEnv({ PORT: String(await freePort()), SIGHTLINE_DATA_DIR: dataDir, SIGHTLINE_DEMO: '1' });
      log(`  Sightline, first start ${i}/${reps} (fresh data dir: initdb, migrate, seed) ...`);
      first.push(await run(`Sightline, first start ${i}`, SERVER_SCRIPT, await env(), '/api/v1/openapi.json', serverLog, children));
      const withLoad = loadRequests > 0 && i === reps;
      log(`  Sightline, restart ${i}/${reps} (same data dir, after a clean stop)${withLoad ? ', then the load' : ''} ...`);
      second.push(
        await run(
          `Sightline, restart ${i}`,
          SERVER_SCRIPT,
          await env(),
          '/api/v1/openapi.json',
          serverLog,
          children,
          withLoad
            ? async (port) => {
                // A read key with room for the load, made on the running server's cluster, as the CLI does.
                const database = await openEmbedded(dataDir);
                let key: string;
                try {
                  const workspace = await database.db.selectFrom('workspaces').select('id').where('name', '=', 'Demo workspace').executeTakeFirstOrThrow();
                  key = (await createApiKey(database.db, { workspaceId: workspace.id, scopes: ['read'], rateLimit: 1_000_000, name: 'bench read' })).key;
                } finally {
                  await database.close();
                }
                return runLoadProcess(loadSpec(`http://127.0.0.1:${port}/api/v1/projects`, { authorization: `Bearer ${key}` }));
              }
            : undefined,
        ),
      );
    }

    for (const r of [...(bare ? [bare] : []), ...first, ...second]) {
      if (r.load && (r.load.non200 > 0 || r.load.errors > 0)) {
        console.warn(`warning: ${r.name}: ${r.load.non200} non-200 and ${r.load.errors} failed requests (${r.load.firstError ?? ''})`);
      }
      if (r.warnings > 0) console.warn(`warning: ${r.name}: ${r.warnings} warn/error log lines, first: ${r.firstWarning ?? ''}`);
      if (r.exitCode !== 0) console.warn(`warning: ${r.name}: exit code ${r.exitCode} after SIGTERM`);
    }
    const result: StartupBenchResult = {
      loadRequests,
      concurrency,
      reps,
      first,
      second,
      firstMedianMs: round1(median(first.map((r) => r.startMs))),
      secondMedianMs: round1(median(second.map((r) => r.startMs))),
    };
    if (bare) result.bare = bare;
    return result;
  } finally {
    for (const child of children) await stop(child);
    for (const dataDir of dataDirs) await stopLeftoverPostmaster(dataDir);
    for (const dataDir of dataDirs) removeDataDir(dataDir);
    removeDataDir(work);
  }
}

const mib = (m: FamilyMemory | undefined, field: 'rssMiB' | 'pssMiB') => m?.[field] ?? '-';

export function formatStartupBench(r: StartupBenchResult): string {
  const loaded = r.loadRequests > 0;
  const row = (s: StartRun, probed: string) => [
    s.name,
    probed,
    s.startMs,
    s.rssAfterStartMiB,
    mib(s.clusterAfterStart, 'rssMiB'),
    ...(loaded ? [s.rssAfterLoadMiB ?? '-', mib(s.clusterAfterLoad, 'rssMiB')] : []),
    mib(s.clusterAfterLoad ?? s.clusterAfterStart, 'pssMiB'),
    s.peakRssMiB,
    ...(loaded ? [s.load?.rps ?? '-'] : []),
    s.stopMs,
  ];
  const rows = [
    ...(r.bare ? [row(r.bare, 'GET /bare')] : []),
    ...r.first.map((s) => row(s, 'GET /api/v1/openapi.json')),
    ...r.second.map((s) => row(s, 'GET /api/v1/openapi.json')),
  ];
  const header = [
    'server',
    'first 200 of',
    'start ms',
    'RSS start MiB',
    'cluster RSS start MiB',
    ...(loaded ? [`RSS after ${r.loadRequests} req MiB`, 'cluster RSS after load MiB'] : []),
    loaded ? 'cluster PSS (last reading) MiB' : 'cluster PSS start MiB',
    'peak RSS MiB',
    ...(loaded ? ['load req/s'] : []),
    'stop ms',
  ];
  return [
    table(header, rows),
    '',
    `median of ${r.reps}: first start (fresh data dir) ${r.firstMedianMs} ms; restart (same data dir) ${r.secondMedianMs} ms`,
    'cluster = the embedded postmaster and its children (summed VmRSS counts shared memory once per process; PSS splits it); stop ms includes the postmaster\'s stop',
  ].join('\n');
}

if (import.meta.main) {
  const result = await runStartupBench();
  console.log(`\n${formatStartupBench(result)}`);
  writeJsonOut(result);
}
