/**
 * Start-up time and resident memory of the service as `npm start` runs it (`node src/server.ts`,
 * spawned directly so the measured pid is the server's, not npm's), beside a bare Fastify server
 * (bench/lib/bare-server.ts) measured in the same run. See bench/README.md.
 *
 *   node bench/startup.ts
 *   --startup-load-requests=N / BENCH_STARTUP_LOAD_REQUESTS (default 3000): the load before the
 *   second RSS reading; concurrency from --concurrency / BENCH_CONCURRENCY (16).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { embeddedSocket, openForCommand } from '../src/db/database.ts';
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

const SERVER_SCRIPT = join(ROOT, 'src', 'server.ts');
const BARE_SCRIPT = join(BENCH_DIR, 'lib', 'bare-server.ts');
const POLL_MS = 20;
const START_TIMEOUT_MS = 60_000;

export interface StartRun {
  name: string;
  /** Spawn to the first 200 of the probed path, in ms. */
  startMs: number;
  probes: number;
  rssAfterStartMiB: number;
  /** After the load, when one was run. */
  rssAfterLoadMiB?: number;
  peakRssMiB: number;
  load?: LoadResult;
  /** SIGTERM to exit, in ms. */
  stopMs: number;
  exitCode: number | null;
  /** Lines the server logged at warn level or above (pino JSON), and the first of them. */
  warnings: number;
  firstWarning?: string;
}

export interface StartupBenchResult {
  loadRequests: number;
  concurrency: number;
  bare: StartRun;
  first: StartRun;
  second: StartRun;
}

interface Started {
  child: ChildProcess;
  startMs: number;
  probes: number;
}

function logTail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Spawns `script` with node and polls `url` every 20 ms until it answers 200. */
async function startAndWait(script: string, env: NodeJS.ProcessEnv, url: string, logFile: string, children: Set<ChildProcess>): Promise<Started> {
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
function warningsIn(logFile: string, fromOffset: number): { count: number; first?: string } {
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

function fileSize(file: string): number {
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
  const logOffset = fileSize(logFile);
  const started = await startAndWait(script, env, `http://127.0.0.1:${port}${readyPath}`, logFile, children);
  const pid = started.child.pid;
  if (pid === undefined) throw new Error(`${name}: no pid`);
  const afterStart = memoryOf(pid);
  let loadResult: LoadResult | undefined;
  let afterLoad: ReturnType<typeof memoryOf> | undefined;
  if (load) {
    loadResult = await load(port);
    afterLoad = memoryOf(pid);
  }
  const peak = afterLoad?.peakMiB ?? afterStart.peakMiB;
  const stopped = await stop(started.child);
  if (stopped.killed) console.warn(`warning: ${name}: did not exit within 10 s of SIGTERM; killed`);
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
  if (afterLoad) result.rssAfterLoadMiB = afterLoad.rssMiB;
  if (loadResult) result.load = loadResult;
  if (warnings.first !== undefined) result.firstWarning = warnings.first;
  return result;
}

export async function runStartupBench(log: (line: string) => void = console.log): Promise<StartupBenchResult> {
  const loadRequests = Math.max(1, Math.round(setting('startup-load-requests', 3_000)));
  const concurrency = Math.max(1, Math.round(setting('concurrency', 16)));
  const loadSpec = (url: string, headers: Record<string, string> = {}) => ({
    url,
    headers,
    concurrency,
    requests: loadRequests,
    durationMs: 10_000,
    warmupMs: 0,
    warmupRequests: 0,
  });
  log(`start-up: spawn to first 200 (polled every ${POLL_MS} ms); RSS after start and after ${loadRequests} requests at concurrency ${concurrency}`);

  const work = mkdtempSync(join(tmpdir(), 'sightline-startup-'));
  const dataDir = join(work, 'data');
  const children = new Set<ChildProcess>();
  const baseEnv: NodeJS.ProcessEnv = { ...process.env };
  // The embedded database and in-process rate limits, as a plain `npm start` on a fresh machine.
  delete baseEnv.DATABASE_URL;
  delete baseEnv.REDIS_URL;
  delete baseEnv.SIGHTLINE_PUBLIC_URL;
  try {
    log('  bare Fastify server ...');
    const bare = await run(
      'bare Fastify',
      BARE_SCRIPT,
      { ...baseEnv, PORT: String(await freePort()) },
      '/bare',
      join(work, 'bare.log'),
      children,
      (port) => runLoadProcess(loadSpec(`http://127.0.0.1:${port}/bare`)),
    );

    const sightlineEnv = async (): Promise<NodeJS.ProcessEnv> => ({
      ...baseEnv,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      SIGHTLINE_DATA_DIR: dataDir,
      SIGHTLINE_DEMO: '1',
    });
    const serverLog = join(work, 'server.log');

    log('  Sightline, first start (fresh data dir: create, migrate, seed) ...');
    const first = await run('Sightline, first start', SERVER_SCRIPT, await sightlineEnv(), '/api/v1/openapi.json', serverLog, children);

    log('  Sightline, second start (same data dir) ...');
    const second = await run('Sightline, second start', SERVER_SCRIPT, await sightlineEnv(), '/api/v1/openapi.json', serverLog, children, async (port) => {
      // A read key with room for the load, made through the running server's socket like the CLI does.
      const database = await openForCommand({ databaseUrl: undefined, dataDir });
      let key: string;
      try {
        const workspace = await database.db.selectFrom('workspaces').select('id').where('name', '=', 'Demo workspace').executeTakeFirstOrThrow();
        key = (await createApiKey(database.db, { workspaceId: workspace.id, scopes: ['read'], rateLimit: 1_000_000, name: 'bench read' })).key;
      } finally {
        await database.close();
      }
      return runLoadProcess(loadSpec(`http://127.0.0.1:${port}/api/v1/projects`, { authorization: `Bearer ${key}` }));
    });

    for (const r of [bare, first, second]) {
      if (r.load && (r.load.non200 > 0 || r.load.errors > 0)) {
        console.warn(`warning: ${r.name}: ${r.load.non200} non-200 and ${r.load.errors} failed requests (${r.load.firstError ?? ''})`);
      }
      if (r.warnings > 0) console.warn(`warning: ${r.name}: ${r.warnings} warn/error log lines, first: ${r.firstWarning ?? ''}`);
      if (r.exitCode !== 0) console.warn(`warning: ${r.name}: exit code ${r.exitCode} after SIGTERM`);
    }
    return { loadRequests, concurrency, bare, first, second };
  } finally {
    for (const child of children) await stop(child);
    const socketDir = embeddedSocket(dataDir).dir;
    if (!socketDir.startsWith(work)) rmSync(socketDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

export function formatStartupBench(r: StartupBenchResult): string {
  const row = (s: StartRun, probed: string) => [
    s.name,
    probed,
    s.startMs,
    s.rssAfterStartMiB,
    s.rssAfterLoadMiB ?? '-',
    s.peakRssMiB,
    s.load?.rps ?? '-',
    s.stopMs,
  ];
  return table(
    ['server', 'first 200 of', 'start ms', 'RSS start MiB', `RSS after ${r.loadRequests} req MiB`, 'peak RSS MiB', 'load req/s', 'stop ms'],
    [row(r.bare, 'GET /bare'), row(r.first, 'GET /api/v1/openapi.json'), row(r.second, 'GET /api/v1/openapi.json')],
  );
}

if (import.meta.main) {
  const result = await runStartupBench();
  console.log(`\n${formatStartupBench(result)}`);
  writeJsonOut(result);
}
