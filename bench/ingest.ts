/**
 * Server-log ingest throughput, in lines per second, beside GoAccess reading the same lines.
 *
 *   npx node bench/ingest.ts
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx node bench/ingest.ts
 *
 * 1. Bodies: distinct ~2 MiB bodies of mixed real log lines (bench/lib/log-corpus.ts): combined and
 *    Caddy JSON, ~8% AI crawler hits, ~4% AI-referred visits, ~1% junk, the rest ordinary traffic.
 *    No line repeats within or across bodies, so ingest's dedupe drops nothing.
 * 2. Parse + classify alone: `classifyLine` (src/traffic/ingest-log.ts) over every line of every body,
 *    in this process, after warm-up passes; also `parseLogLine` alone and per format.
 * 3. GoAccess (Debian package) over a file of the combined-format lines of those bodies, and
 *    `classifyLine` over exactly the same lines.
 * 4. End to end: POST /api/ingest/{projectId} (text/plain, ingest key with a high rate limit) to the
 *    app listening on 127.0.0.1, uploads one at a time from a separate process (lib/post-load.ts),
 *    each body new; beside the same bodies POSTed to a bare Fastify route that only splits lines;
 *    and `ingestLog` called in process (no HTTP). Into the embedded PostgreSQL 18 (a fresh data dir
 *    under .tmp/, stopped and deleted at the end) and, when DATABASE_URL is set, a fresh database on
 *    that PostgreSQL server (dropped at the end).
 *
 * Settings (argument, else BENCH_* variable): --uploads (10 measured HTTP uploads per database, after
 * one warm-up upload), --direct (3 in-process ingestLog calls), --passes (5 classify passes after 2
 * warm-up passes), --goaccess-repeat (5: the combined lines are written this many times to the
 * GoAccess file), --goaccess-runs (3), --json-out=FILE.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/create-api-key.ts';
import type { Database } from '../src/db/database.ts';
import { createProject } from '../src/projects/create-project.ts';
import { classifyLine, ingestLog, type IngestCounts } from '../src/traffic/ingest-log.ts';
import { parseLogLine } from '../src/traffic/parse-log-line.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';
import { buildBareApp } from './lib/bare-server.ts';
import { round1, setting, table, writeJsonOut } from './lib/common.ts';
import { BODY_BYTES, DEFAULT_MIX, loadCorpus, makeBody, type LogBody } from './lib/log-corpus.ts';
import { runPostLoadProcess, type PostLoadResult } from './lib/post-load.ts';
import { codeVersion, loadavg, median, openScratchEmbedded, openScratchPostgres, type ScratchDb } from './lib/scratch-db.ts';

const settings = {
  uploads: Math.max(1, Math.round(setting('uploads', 10))),
  direct: Math.max(0, Math.round(setting('direct', 3))),
  passes: Math.max(1, Math.round(setting('passes', 5))),
  goaccessRepeat: Math.max(1, Math.round(setting('goaccess-repeat', 5))),
  goaccessRuns: Math.max(1, Math.round(setting('goaccess-runs', 3))),
};
const NOW = new Date('2026-11-05T00:00:00Z');
const PROJECT = { name: 'Semicomplete', domain: 'semicomplete.com' };
const MiB = 1024 * 1024;
const log = (line: string) => console.log(line);

interface Row {
  what: string;
  lines: number;
  mib: number;
  seconds: number;
  linesPerSecond: number;
  note: string;
}
const rows: Row[] = [];
const addRow = (what: string, lines: number, bytes: number, seconds: number, note = '') => {
  const row = { what, lines, mib: Math.round((bytes / MiB) * 10) / 10, seconds: Math.round(seconds * 1000) / 1000, linesPerSecond: Math.round(lines / seconds), note };
  rows.push(row);
  log(`  ${what}: ${row.lines} lines in ${row.seconds} s = ${row.linesPerSecond} lines/s ${note}`);
  return row;
};

// ---------------------------------------------------------------------------------------------

log(`ingest benchmark: ${codeVersion()}, Node ${process.version}, load average ${loadavg()} at start`);
const loadStart = loadavg();
const t0 = performance.now();
const corpus = loadCorpus();
const bodyCount = 1 + settings.uploads + settings.direct;
const bodies: LogBody[] = Array.from({ length: bodyCount }, (_, i) => makeBody(corpus, i));
const tmp = mkdtempSync(join(tmpdir(), 'sightline-bench-ingest-'));
const bodyFiles = bodies.map((b, i) => {
  const file = join(tmp, `body-${i}.log`);
  writeFileSync(file, b.text);
  return file;
});
const sum = (f: (b: LogBody) => number, list = bodies) => list.reduce((a, b) => a + f(b), 0);
const counts = bodies.reduce<Record<string, number>>((acc, b) => {
  for (const [k, v] of Object.entries(b.counts)) acc[k] = (acc[k] ?? 0) + v;
  return acc;
}, {});
log(
  `${bodyCount} bodies of ${(BODY_BYTES / MiB).toFixed(3)} MiB at most: ${sum((b) => b.lines)} lines, ${sum((b) => b.lines) / bodyCount | 0} per body, ` +
    `generated in ${round1((performance.now() - t0) / 1000)} s; mix asked ${JSON.stringify(DEFAULT_MIX)}, generated ${JSON.stringify(counts)}`,
);

// ---------------------------------------------------------------------------------------------
// Parse + classify alone

const allLines = bodies.flatMap((b) => b.text.split('\n').filter((l) => l !== ''));
const combinedSet = new Set(bodies.flatMap((b) => b.combinedLines));
const combinedLines = allLines.filter((l) => combinedSet.has(l));
const otherLines = allLines.filter((l) => !combinedSet.has(l));
const bytesOf = (lines: string[]) => lines.reduce((a, l) => a + Buffer.byteLength(l) + 1, 0);

function timePasses(lines: string[], fn: (line: string) => number): { seconds: number; all: number[]; check: number } {
  let check = 0;
  for (let w = 0; w < 2; w++) for (const line of lines) check += fn(line);
  const all: number[] = [];
  for (let p = 0; p < settings.passes; p++) {
    const start = performance.now();
    for (const line of lines) check += fn(line);
    all.push((performance.now() - start) / 1000);
  }
  return { seconds: median(all), all, check };
}

const project = { domain: PROJECT.domain };
const classify = (line: string) => {
  const r = classifyLine(line, 'rest', project, NOW);
  return 'drop' in r ? 0 : 1;
};
const parse = (line: string) => (parseLogLine(line) ? 1 : 0);

log(`\nparse + classify in process (median of ${settings.passes} passes after 2 warm-up passes):`);
{
  const all = timePasses(allLines, classify);
  addRow('classifyLine, all lines of the bodies', allLines.length, bytesOf(allLines), all.seconds, `(${all.check / (settings.passes + 2)} hits per pass; passes ${all.all.map((s) => s.toFixed(3)).join(' ')} s)`);
  const p = timePasses(allLines, parse);
  addRow('parseLogLine alone, all lines', allLines.length, bytesOf(allLines), p.seconds);
  const c = timePasses(combinedLines, classify);
  addRow('classifyLine, combined lines only', combinedLines.length, bytesOf(combinedLines), c.seconds);
  const o = timePasses(otherLines, classify);
  addRow('classifyLine, Caddy lines only (+1% junk)', otherLines.length, bytesOf(otherLines), o.seconds);
}

// ---------------------------------------------------------------------------------------------
// GoAccess on the combined lines

interface GoAccessFigures {
  version: string;
  lines: number;
  bytes: number;
  reportSeconds: number[];
  parseOnlySeconds: number[];
  valid: number;
  failed: number;
  sightlineSeconds: number;
}
let goaccess: GoAccessFigures | undefined;
log(`\nGoAccess over the combined-format lines (written ${settings.goaccessRepeat} times to one file):`);
{
  const version = spawnSync('goaccess', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) {
    log(`  GoAccess is not installed (${version.error?.message ?? version.stderr}): skipped. Install: apt-get update && apt-get install -y goaccess`);
  } else {
    const fileLines = Array.from({ length: settings.goaccessRepeat }, () => combinedLines).flat();
    const file = join(tmp, 'combined.log');
    writeFileSync(file, `${fileLines.join('\n')}\n`);
    const bytes = bytesOf(fileLines);
    const out = join(tmp, 'goaccess.json');
    const run = (extra: string[]) => {
      const start = performance.now();
      const r = spawnSync('goaccess', [file, '--log-format=COMBINED', '--no-global-config', '--no-progress', ...extra], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
      const seconds = (performance.now() - start) / 1000;
      if (r.status !== 0) throw new Error(`goaccess exited with ${r.status ?? r.signal}: ${r.stderr.slice(0, 500)}`);
      return seconds;
    };
    run(['-o', out, '--json-pretty-print']); // warm the page cache
    const reportSeconds: number[] = [];
    const parseOnlySeconds: number[] = [];
    for (let i = 0; i < settings.goaccessRuns; i++) {
      reportSeconds.push(run(['-o', out, '--json-pretty-print']));
      parseOnlySeconds.push(run(['--process-and-exit']));
    }
    const report = JSON.parse(readFileSync(out, 'utf8')) as { general?: { valid_requests?: number; failed_requests?: number; total_requests?: number } };
    const valid = report.general?.valid_requests ?? NaN;
    const failed = report.general?.failed_requests ?? NaN;
    const sightline = timePasses(fileLines, classify);
    goaccess = {
      version: version.stdout.split('\n')[0]?.trim() ?? '',
      lines: fileLines.length,
      bytes,
      reportSeconds,
      parseOnlySeconds,
      valid,
      failed,
      sightlineSeconds: sightline.seconds,
    };
    log(`  ${goaccess.version}; the file: ${fileLines.length} lines, ${(bytes / MiB).toFixed(1)} MiB; GoAccess counted ${valid} valid, ${failed} failed`);
    addRow('GoAccess 1.7, parse + JSON report (-o json)', fileLines.length, bytes, median(reportSeconds), `(runs ${reportSeconds.map((s) => s.toFixed(3)).join(' ')} s; includes process start and report)`);
    addRow('GoAccess 1.7, parse only (--process-and-exit)', fileLines.length, bytes, median(parseOnlySeconds), `(runs ${parseOnlySeconds.map((s) => s.toFixed(3)).join(' ')} s)`);
    addRow('classifyLine, the same combined file', fileLines.length, bytes, sightline.seconds, '(in process, warm)');
  }
}

// ---------------------------------------------------------------------------------------------
// End to end

interface DbFigures {
  label: string;
  where: string;
  http: PostLoadResult;
  totals: IngestCounts;
  perUploadSeconds: number[];
  duplicateUpload: { seconds: number; counts: IngestCounts } | undefined;
  direct: { seconds: number; counts: IngestCounts }[];
  stored: { trafficHits: number; ingestLines: number; trafficDaily: number };
}
const dbFigures: DbFigures[] = [];

const uploadSpec = (url: string, headers: Record<string, string>, files: string[], warmup: number) => ({
  url,
  headers: { 'content-type': 'text/plain', ...headers },
  bodyFiles: files,
  concurrency: 1,
  requests: files.length - warmup,
  durationMs: 900_000,
  warmupMs: warmup > 0 ? 900_000 : 0,
  warmupRequests: warmup,
  keepResponses: files.length,
  timeoutMs: 300_000,
});

const addCounts = (a: IngestCounts, b: IngestCounts): IngestCounts => ({
  linesRead: a.linesRead + b.linesRead,
  crawlerHits: a.crawlerHits + b.crawlerHits,
  aiVisits: a.aiVisits + b.aiVisits,
  dropped: a.dropped + b.dropped,
  duplicates: a.duplicates + b.duplicates,
});
const zero: IngestCounts = { linesRead: 0, crawlerHits: 0, aiVisits: 0, dropped: 0, duplicates: 0 };

const httpFiles = bodyFiles.slice(0, 1 + settings.uploads);
const directBodies = bodies.slice(1 + settings.uploads);
const measuredBodies = bodies.slice(1, 1 + settings.uploads);
const measuredBytes = sum((b) => b.bytes, measuredBodies);

log(`\nbare Fastify: POST of the same bodies to a route that only splits them into lines (HTTP, separate client process):`);
{
  const bare = buildBareApp();
  bare.post('/bare-ingest', { bodyLimit: 2_097_152 }, async (request) => ({ lines: String(request.body).split('\n').length }));
  const address = await bare.listen({ port: 0, host: '127.0.0.1' });
  try {
    const r = await runPostLoadProcess(uploadSpec(`${address}/bare-ingest`, {}, httpFiles, 1));
    if (r.unexpected || r.errors) throw new Error(`bare upload failed: ${r.firstError}`);
    addRow('bare Fastify POST, 2 MiB text/plain, split only', sum((b) => b.lines, measuredBodies), measuredBytes, r.elapsedMs / 1000, `(per upload p50 ${r.p50Ms} ms)`);
  } finally {
    await bare.close();
  }
}

async function endToEnd(scratch: ScratchDb): Promise<void> {
  const { db } = scratch.database;
  log(`\n${scratch.label} (${scratch.where}):`);
  const { id: workspaceId } = await createWorkspace(db, { name: 'Ingest bench', plan: 'growth' });
  const { id: projectId } = await createProject(db, workspaceId, PROJECT);
  const { key } = await createApiKey(db, { workspaceId, projectId, scopes: ['ingest'], rateLimit: 1_000_000 });
  const app = await buildApp({ db, now: () => NOW });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  let httpResult: PostLoadResult;
  let duplicateUpload: DbFigures['duplicateUpload'];
  try {
    httpResult = await runPostLoadProcess(uploadSpec(`${address}/api/ingest/${projectId}`, { authorization: `Bearer ${key}` }, httpFiles, 1));
    if (httpResult.unexpected || httpResult.errors) throw new Error(`ingest upload failed: ${httpResult.firstError}`);
    // A body already sent once: every AI line is a duplicate.
    const again = await runPostLoadProcess(uploadSpec(`${address}/api/ingest/${projectId}`, { authorization: `Bearer ${key}` }, [httpFiles[1]!], 0));
    if (again.unexpected || again.errors) throw new Error(`re-upload failed: ${again.firstError}`);
    duplicateUpload = { seconds: again.elapsedMs / 1000, counts: (JSON.parse(again.responses?.[0] ?? '{}') as { data: IngestCounts }).data };
  } finally {
    await app.close();
  }
  const responses = (httpResult.responses ?? []).map((r) => (JSON.parse(r) as { data: IngestCounts }).data);
  const totals = responses.reduce(addCounts, zero);
  if (totals.duplicates !== 0) log(`  warning: ${totals.duplicates} duplicates in fresh uploads`);
  const note = `(${settings.uploads} uploads one at a time; per upload p50 ${(httpResult.p50Ms / 1000).toFixed(2)} s, max ${(httpResult.maxMs / 1000).toFixed(2)} s; ${totals.crawlerHits} crawler hits + ${totals.aiVisits} visits stored, ${totals.dropped} dropped, ${totals.duplicates} duplicates)`;
  addRow(`POST /api/ingest, ${scratch.label}`, totals.linesRead, measuredBytes, httpResult.elapsedMs / 1000, note);
  if (duplicateUpload) {
    addRow(`POST /api/ingest, ${scratch.label}, a body sent again (all duplicates)`, duplicateUpload.counts.linesRead, bodies[1]!.bytes, duplicateUpload.seconds, `(${duplicateUpload.counts.duplicates} duplicates)`);
  }

  const row = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirstOrThrow();
  const direct: DbFigures['direct'] = [];
  for (const body of directBodies) {
    const start = performance.now();
    const c = await ingestLog(db, row, body.text, 'rest', NOW);
    direct.push({ seconds: (performance.now() - start) / 1000, counts: c });
  }
  if (direct.length > 0) {
    const c = direct.map((d) => d.counts).reduce(addCounts, zero);
    const seconds = direct.reduce((a, d) => a + d.seconds, 0);
    addRow(`ingestLog in process (no HTTP), ${scratch.label}`, c.linesRead, sum((b) => b.bytes, directBodies), seconds, `(${direct.length} bodies; each ${direct.map((d) => d.seconds.toFixed(2)).join(' ')} s)`);
  }
  const count = async (table: 'ingest_lines' | 'traffic_daily') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow()).n);
  // Hits are stored only as per-day sums: trafficHits is the sum of traffic_daily.hits.
  const hits = await db
    .selectFrom('traffic_daily')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('hits'), eb.lit(0)).as('n'))
    .where('project_id', '=', projectId)
    .executeTakeFirstOrThrow();
  const stored = { trafficHits: Number(hits.n), ingestLines: await count('ingest_lines'), trafficDaily: await count('traffic_daily') };
  log(`  stored: ${JSON.stringify(stored)}`);
  dbFigures.push({ label: scratch.label, where: scratch.where, http: { ...httpResult, responses: [] }, totals, perUploadSeconds: (httpResult.latenciesMs ?? []).map((ms) => ms / 1000), duplicateUpload, direct, stored });
}

const scratches: (() => Promise<ScratchDb | undefined>)[] = [() => openScratchEmbedded('ingest'), () => openScratchPostgres('ingest')];
try {
  for (const open of scratches) {
    const scratch = await open();
    if (!scratch) {
      log('\nPostgreSQL: skipped (DATABASE_URL is not set)');
      continue;
    }
    try {
      await endToEnd(scratch);
    } finally {
      await scratch.close();
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------

const loadEnd = loadavg();
log(`\nSide by side (lines/s; MiB is the text processed; seconds is the median pass or the total of the uploads):\n`);
log(table(['what', 'lines', 'MiB', 'seconds', 'lines/s', 'MiB/s'], rows.map((r) => [r.what, r.lines, r.mib, r.seconds, r.linesPerSecond, Math.round((r.mib / r.seconds) * 10) / 10])));
log(`\nload average: ${loadStart} at start, ${loadEnd} at the end; whole run ${round1((performance.now() - t0) / 1000)} s`);
writeJsonOut({ settings, code: codeVersion(), node: process.version, loadStart, loadEnd, bodies: { count: bodyCount, lines: sum((b) => b.lines), bytes: sum((b) => b.bytes), mix: counts }, rows, goaccess, databases: dbFigures });
