/**
 * Change detection on a large project: the time of `detectChanges` for one day, and the latency of
 * GET /api/v1/projects/{id}/changes.
 *
 *   npx node bench/changes.ts
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx node bench/changes.ts
 *
 * The project: bench/lib/analytics-data.ts at scale 1 (500 prompts x 7 engines x 3 locations, one
 * run each a day; a brand and 4 competitors) over `--days` days (30: 315,000 runs) ending on
 * `--end-day`, imported with `importRuns` (which itself ends with detectChanges over every day it
 * landed runs on). Then, on the same database:
 *
 * - `detectChanges(db, projectId, [day])` for the last day (what a daily import triggers: that day
 *   and the 7 after it are evaluated against the 7 before), for a day in the middle of the range
 *   (all 15 days of its window hold runs), for every day of the import at once, and for a day 30
 *   days after the last (no runs in its window: the cost that does not depend on it): one warm-up,
 *   then --reps repetitions each (it is idempotent: repetitions rewrite the same events). Measured
 *   as imported (statistics as autovacuum left them), then again after ANALYZE.
 * - Where the time goes: one call of each case through a Kysely that logs every statement, and
 *   EXPLAIN (ANALYZE, BUFFERS) of the slowest statement of each one-day case; before and after ANALYZE.
 * - GET /changes through `app.inject` (sequential; 20 warm-up requests, then 200), for the default
 *   window (28 days to "today", the app's clock pinned to the day after the last day), the whole
 *   range, and 7 days; beside GET /bare on a bare Fastify app measured the same way.
 *
 * On the embedded PostgreSQL 18 (a fresh data dir under .tmp/), and on a fresh database on the
 * PostgreSQL server of DATABASE_URL when it is set (both deleted at the end). Settings: --days (30), --scale (1), --end-day (2026-11-21), --reps (5),
 * --requests (200), --warmup-requests (20), --import-max-s (1500: the import stops there and the
 * run goes on with the days already in), --db (both | embedded | postgres), --json-out=FILE.
 */
import { CompiledQuery, sql, type Kysely, type LogEvent } from 'kysely';
import { addDays } from '../src/analytics/filters.ts';
import { buildApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { detectChanges } from '../src/changes/detect-changes.ts';
import type { DB } from '../src/db/types.ts';
import { addCompetitor } from '../src/projects/add-competitor.ts';
import { createProject } from '../src/projects/create-project.ts';
import { importRuns, type ImportResult } from '../src/runs/import-runs.ts';
import { createWorkspace } from '../src/workspaces/create-workspace.ts';
import { BRAND, COMPETITORS, dataset } from './lib/analytics-data.ts';
import { buildBareApp } from './lib/bare-server.ts';
import { round1, setting, stringArg, table, writeJsonOut } from './lib/common.ts';
import { measureInject } from './lib/latency.ts';
import { codeVersion, loadavg, median, openScratchEmbedded, openScratchPostgres, type ScratchDb } from './lib/scratch-db.ts';

const settings = {
  days: Math.max(2, Math.round(setting('days', 30))),
  scale: setting('scale', 1),
  endDay: stringArg('end-day') ?? '2026-11-21',
  reps: Math.max(1, Math.round(setting('reps', 5))),
  requests: Math.max(1, Math.round(setting('requests', 200))),
  warmupRequests: Math.round(setting('warmup-requests', 20)),
  importMaxS: setting('import-max-s', 1_500),
  db: stringArg('db') ?? process.env.BENCH_DB ?? 'both',
};
if (!['both', 'embedded', 'postgres'].includes(settings.db)) throw new Error(`--db must be both, embedded or postgres, got "${settings.db}"`);
const log = (line: string) => console.log(line);

class ImportTimeLimit extends Error {}

interface DetectFigure {
  server: string;
  stats: 'as imported' | 'after ANALYZE';
  case: string;
  days: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  runsMs: number[];
}
interface StatementFigure {
  server: string;
  stats: 'as imported' | 'after ANALYZE';
  case: string;
  statement: string;
  count: number;
  ms: number;
}
interface EndpointFigure {
  server: string;
  case: string;
  url: string;
  requests: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  events: number;
}
interface ServerFigures {
  server: string;
  where: string;
  import: { runs: number; days: number; seconds: number; runsPerSecond: number; aborted: boolean; result: ImportResult | undefined; tenths: string[] };
  tables: Record<string, number>;
}

const detectFigures: DetectFigure[] = [];
const statementFigures: StatementFigure[] = [];
const endpointFigures: EndpointFigure[] = [];
const serverFigures: ServerFigures[] = [];
const plans: { server: string; stats: string; case: string; statement: string; plan: string[] }[] = [];

/** The kind of a statement: its verb and first table. */
function statementKind(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().toLowerCase();
  const m = /^(insert into|select .*? from|update|delete from|with .*? select .*? from) "?([a-z_]+)"?/.exec(t);
  if (m) return `${m[1]!.startsWith('select') ? 'select' : m[1]!.startsWith('with') ? 'with/select' : m[1]} ${m[2]}`;
  return t.split(' ')[0] ?? t;
}

const count = async (db: Kysely<DB>, t: 'runs' | 'change_events' | 'run_rollup' | 'subject_rollup' | 'url_days' | 'run_ads', projectId: string) =>
  Number((await db.selectFrom(t).select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow()).n);

async function benchServer(scratch: ScratchDb): Promise<void> {
  const { db } = scratch.database;
  const server = scratch.label;
  log(`\n${server} (${scratch.where}):`);
  const { id: workspaceId } = await createWorkspace(db, { name: 'Changes bench', plan: 'growth' });
  const { id: projectId } = await createProject(db, workspaceId, BRAND);
  for (const c of COMPETITORS) await addCompetitor(db, projectId, c);
  const ds = dataset({ scale: settings.scale, endDay: settings.endDay, days: settings.days });
  log(`  importing ${ds.runs} runs (${ds.prompts} prompts x 7 engines x 3 locations x ${ds.days} days, ${ds.firstDay} to ${ds.endDay}); at most ${settings.importMaxS} s`);

  // Import, with progress every tenth.
  const tenths: string[] = [];
  const every = Math.max(1, Math.round(ds.runs / 10));
  const t0 = performance.now();
  const deadline = t0 + settings.importMaxS * 1000;
  let pulled = 0;
  let lastT = t0;
  let lastDay = ds.firstDay;
  function* withProgress(lines: Iterable<string>): Generator<string> {
    for (const line of lines) {
      pulled++;
      if (pulled % every === 0) {
        const at = performance.now();
        const entry = `${Math.round((100 * pulled) / ds.runs)}%: ${round1((at - t0) / 1000)} s, ${Math.round(every / ((at - lastT) / 1000))} runs/s over the last tenth, load ${loadavg()}`;
        tenths.push(entry);
        log(`    ${entry}`);
        lastT = at;
      }
      if (performance.now() > deadline) throw new ImportTimeLimit(`import stopped by --import-max-s=${settings.importMaxS}`);
      lastDay = line.slice(line.indexOf('"ranAt":"') + 9, line.indexOf('"ranAt":"') + 19);
      yield line;
    }
  }
  let result: ImportResult | undefined;
  let aborted = false;
  try {
    result = await importRuns(db, projectId, withProgress(ds.lines()));
  } catch (error) {
    if (!(error instanceof ImportTimeLimit)) throw error;
    aborted = true;
    log(`  ${error.message} after ${pulled} lines (last day ${lastDay}); measuring with the days already in`);
  }
  const importSeconds = (performance.now() - t0) / 1000;
  const runs = await count(db, 'runs', projectId);
  // With an aborted import the last (partial) day is left out of the cases.
  const endDay = aborted ? addDays(lastDay, -1) : ds.endDay;
  const days = Math.round((Date.parse(endDay) - Date.parse(ds.firstDay)) / 86_400_000) + 1;
  const tables = {
    runs,
    run_ads: await count(db, 'run_ads', projectId),
    run_rollup: await count(db, 'run_rollup', projectId),
    subject_rollup: await count(db, 'subject_rollup', projectId),
    url_days: await count(db, 'url_days', projectId),
    change_events: await count(db, 'change_events', projectId),
  };
  serverFigures.push({
    server,
    where: scratch.where,
    import: { runs, days, seconds: round1(importSeconds), runsPerSecond: Math.round(runs / importSeconds), aborted, result: result ? { ...result, errors: result.errors.slice(0, 3) } : undefined, tenths },
    tables,
  });
  log(`  imported ${runs} runs in ${round1(importSeconds)} s (${Math.round(runs / importSeconds)} runs/s, including the import's own detectChanges over all ${days} days); rows: ${JSON.stringify(tables)}`);

  const allDays = Array.from({ length: days }, (_, i) => addDays(ds.firstDay, i));
  const cases: { name: string; days: string[] }[] = [
    { name: `last day (${endDay}), as a daily import`, days: [endDay] },
    { name: `mid-range day (${addDays(endDay, -Math.floor(days / 2))})`, days: [addDays(endDay, -Math.floor(days / 2))] },
    { name: `all ${days} days at once, as the import does`, days: allDays },
    // No runs in its window: what is left is the cost of reading past the project's history.
    { name: `a day with no runs in its window (${addDays(endDay, 30)})`, days: [addDays(endDay, 30)] },
  ];
  const now = new Date(`${addDays(endDay, 1)}T12:00:00Z`);

  const timeCases = async (stats: DetectFigure['stats']) => {
    for (const c of cases) {
      const reps = c.days.length > 1 ? Math.min(settings.reps, 3) : settings.reps;
      await detectChanges(db, projectId, c.days, now); // warm-up
      const runsMs: number[] = [];
      for (let i = 0; i < reps; i++) {
        const start = performance.now();
        await detectChanges(db, projectId, c.days, now);
        runsMs.push(Math.round((performance.now() - start) * 10) / 10);
      }
      const f: DetectFigure = { server, stats, case: c.name, days: c.days.length, medianMs: Math.round(median(runsMs) * 10) / 10, minMs: Math.min(...runsMs), maxMs: Math.max(...runsMs), runsMs };
      detectFigures.push(f);
      log(`  detectChanges, ${stats}, ${c.name}: median ${f.medianMs} ms (runs ${runsMs.join(', ')} ms)`);
    }
  };
  await timeCases('as imported');

  // Where the time goes: one call of each case, every statement timed (after a warm-up call, so a
  // new connection is not counted), and the plans of the slowest statement of the one-day cases.
  const breakdown = async (stats: DetectFigure['stats']) => {
    let byKind = new Map<string, { count: number; ms: number; slowest: LogEvent['query'] | undefined; slowestMs: number }>();
    const logged = scratch.loggedDb((event: LogEvent) => {
      const kind = statementKind(event.query.sql);
      const entry = byKind.get(kind) ?? { count: 0, ms: 0, slowest: undefined, slowestMs: -1 };
      byKind.set(kind, entry);
      entry.count++;
      entry.ms += event.queryDurationMillis;
      if (event.queryDurationMillis > entry.slowestMs) {
        entry.slowestMs = event.queryDurationMillis;
        entry.slowest = event.query;
      }
    });
    try {
      await detectChanges(logged.db, projectId, [endDay], now);
      for (const c of cases) {
        byKind = new Map();
        const start = performance.now();
        await detectChanges(logged.db, projectId, c.days, now);
        const total = performance.now() - start;
        const sorted = [...byKind].sort((a, b) => b[1].ms - a[1].ms);
        const inDb = sorted.reduce((a, [, e]) => a + e.ms, 0);
        for (const [statement, e] of sorted) statementFigures.push({ server, stats, case: c.name, statement, count: e.count, ms: Math.round(e.ms * 10) / 10 });
        statementFigures.push({ server, stats, case: c.name, statement: '(outside statements: evaluateChanges, JS)', count: 0, ms: Math.round((total - inDb) * 10) / 10 });
        log(`  statements of one call, ${stats}, ${c.name}: ${Math.round(total)} ms in all, ${Math.round(inDb)} ms in statements: ${sorted.slice(0, 6).map(([k, e]) => `${k} x${e.count} ${Math.round(e.ms)} ms`).join('; ')}`);
        const slowest = sorted[0]?.[1].slowest;
        if (c.days.length === 1 && slowest) {
          const plan = await logged.db.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain (analyze, buffers) ${slowest.sql}`, [...slowest.parameters]));
          const lines = plan.rows.map((r) => Object.values(r)[0] ?? '');
          plans.push({ server, stats, case: c.name, statement: slowest.sql.replace(/\s+/g, ' '), plan: lines });
          log(`  plan of its slowest statement (${sorted[0]![0]}):\n${lines.map((l) => `      ${l}`).join('\n')}`);
        }
      }
    } finally {
      await logged.close();
    }
  };
  await breakdown('as imported');

  await sql`analyze`.execute(db);
  await timeCases('after ANALYZE');
  await breakdown('after ANALYZE');

  // GET /changes.
  const { key } = await createApiKey(db, { workspaceId, scopes: ['read'], rateLimit: 1_000_000 });
  const app = await buildApp({ db, now: () => now });
  await app.ready();
  const bare = buildBareApp();
  await bare.ready();
  const options = { headers: { authorization: `Bearer ${key}` }, warmupRequests: settings.warmupRequests, requests: settings.requests, maxMs: 120_000 };
  const base = `/api/v1/projects/${projectId}/changes`;
  const endpointCases = [
    { name: 'bare Fastify GET /bare', url: '/bare', target: bare },
    { name: 'GET /changes, default window (28 days)', url: base, target: app },
    { name: `GET /changes, whole range (${days} days)`, url: `${base}?from=${ds.firstDay}&to=${endDay}`, target: app },
    { name: 'GET /changes, last 7 days', url: `${base}?from=${addDays(endDay, -6)}&to=${endDay}`, target: app },
  ];
  for (const c of endpointCases) {
    const stats = await measureInject(c.target, c.url, c.target === bare ? { ...options, headers: {} } : options);
    const events = ((stats.firstBody as { data?: { events?: unknown[] } } | undefined)?.data?.events ?? []).length;
    const f: EndpointFigure = { server, case: c.name, url: c.url, requests: stats.requests, failed: stats.failed, p50Ms: stats.p50Ms, p99Ms: stats.p99Ms, meanMs: stats.meanMs, events };
    endpointFigures.push(f);
    log(`  ${c.name}: p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, mean ${f.meanMs} ms over ${f.requests}${f.failed ? `, FAILED ${f.failed}: ${stats.firstError}` : ''}${c.target === app ? `; ${events} events in the answer` : ''}`);
  }
  await app.close();
  await bare.close();
}

// ---------------------------------------------------------------------------------------------

log(`change-detection benchmark: ${codeVersion()}, Node ${process.version}, load average ${loadavg()} at start`);
const loadStart = loadavg();
const t0 = performance.now();
const opens: (() => Promise<ScratchDb | undefined>)[] = [];
if (settings.db === 'both' || settings.db === 'postgres') opens.push(() => openScratchPostgres('changes'));
if (settings.db === 'both' || settings.db === 'embedded') opens.push(() => openScratchEmbedded('changes'));
for (const open of opens) {
  const scratch = await open();
  if (!scratch) {
    log('\nPostgreSQL: skipped (DATABASE_URL is not set)');
    continue;
  }
  try {
    await benchServer(scratch);
  } finally {
    await scratch.close();
  }
}
const loadEnd = loadavg();

log('\nImport:\n');
log(table(['server', 'runs', 'days', 'seconds', 'runs/s', 'change events', 'run_rollup rows', 'url_days rows'], serverFigures.map((s) => [s.server + (s.import.aborted ? ' (import stopped early)' : ''), s.import.runs, s.import.days, s.import.seconds, s.import.runsPerSecond, s.tables.change_events ?? NaN, s.tables.run_rollup ?? NaN, s.tables.url_days ?? NaN])));
log('\ndetectChanges (ms):\n');
log(table(['server', 'statistics', 'case', 'days passed', 'median', 'min', 'max'], detectFigures.map((f) => [f.server, f.stats, f.case, f.days, f.medianMs, f.minMs, f.maxMs])));
log('\nOne call, by statement (ms):\n');
log(table(['server', 'statistics', 'case', 'statement', 'count', 'ms'], statementFigures.filter((s) => s.ms >= 1 || s.statement.startsWith('(')).map((s) => [s.server, s.stats, s.case, s.statement, s.count, s.ms])));
log(`\nGET /changes via inject (${settings.warmupRequests} warm-up, then ${settings.requests} sequential requests; after ANALYZE):\n`);
log(table(['server', 'case', 'requests', 'failed', 'p50 ms', 'p99 ms', 'mean ms', 'events'], endpointFigures.map((f) => [f.server, f.case, f.requests, f.failed, f.p50Ms, f.p99Ms, f.meanMs, f.events])));
log(`\nload average: ${loadStart} at start, ${loadEnd} at the end; whole run ${round1((performance.now() - t0) / 1000)} s`);
writeJsonOut({ settings, code: codeVersion(), node: process.version, loadStart, loadEnd, servers: serverFigures, detect: detectFigures, statements: statementFigures, plans, endpoint: endpointFigures });
