/**
 * Analytics at size: imports a large deterministic project (bench/lib/analytics-data.ts) with
 * `importRuns`, then measures the latency of the timeseries, ranking and citations endpoints through
 * the in-process app (`app.inject`, sequential requests) beside a bare Fastify route measured the
 * same way. See bench/README.md.
 *
 *   npx node bench/analytics.ts --db=embedded --scale=0.1
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx node bench/analytics.ts --db=postgres --scale=1
 *
 * Settings (argument, else variable): --db / BENCH_DB (embedded | postgres; default embedded: the
 * embedded PostgreSQL 18 in a data dir under .tmp/, stopped and deleted at the end),
 * --scale / BENCH_SCALE (default 0.1), --keep / BENCH_KEEP=1 (keep the data and reuse it next time),
 * --requests (200), --warmup-requests (20), --case-max-ms (120000), --import-max-s (0: no limit),
 * --end-day (2026-11-21), --analyze (ANALYZE the tables before measuring), --explain (capture each
 * case's SQL and print EXPLAIN ANALYZE of the slowest statements), --explain-top (4),
 * --profile-import (database time per kind of import statement), --json-out=FILE.
 * BENCH_CODE_VERSION labels the code measured when running a copy without .git.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { buildApp } from '../src/app.ts';
import { createApiKey } from '../src/auth/create-api-key.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { DB } from '../src/db/types.ts';
import { dataset, type Dataset } from './lib/analytics-data.ts';
import { findOrCreateProject as findOrCreateBenchProject, importDataset as importBenchDataset, openEmbeddedTarget as openEmbeddedBenchTarget, openPostgresTarget as openPostgresBenchTarget, type ImportFigures, type Project, type SetupOptions, type Target } from './lib/analytics-setup.ts';
import { buildBareApp } from './lib/bare-server.ts';
import { describeBusy } from './lib/contention.ts';
import { flagArg, memoryOf, ROOT, round1, setting, stringArg, table, writeJsonOut } from './lib/common.ts';
import { summarise } from './lib/responses.ts';
import { measureInject, type LatencyStats } from './lib/latency.ts';

const argv = process.argv.slice(2);
const flag = (name: string) => flagArg(name, argv);

const settings = {
  db: (stringArg('db') ?? process.env.BENCH_DB ?? 'embedded').trim(),
  scale: setting('scale', 0.1),
  keep: flag('keep'),
  requests: Math.max(1, Math.round(setting('requests', 200))),
  warmupRequests: Math.round(setting('warmup-requests', 20)),
  caseMaxMs: setting('case-max-ms', 120_000),
  importMaxS: setting('import-max-s', 0),
  endDay: stringArg('end-day') ?? '2026-11-21',
  analyze: flag('analyze'),
  explain: flag('explain'),
  explainTop: Math.round(setting('explain-top', 4)),
  profileImport: flag('profile-import'),
};
if (settings.db !== 'embedded' && settings.db !== 'postgres') throw new Error(`--db must be embedded or postgres, got "${settings.db}"`);
if (!(settings.scale > 0 && settings.scale <= 1)) throw new Error(`--scale must be above 0 and at most 1, got ${settings.scale}`);

const log = (line: string) => console.log(line);
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

// The database, the project and the import live in lib/analytics-setup.ts (bench/reads.ts uses them too).
const setup: SetupOptions = { scale: settings.scale, keep: settings.keep, tag: 'analytics', scratchName: `sightline_bench_${process.pid}` };
const openPostgresTarget = () => openPostgresBenchTarget(setup);
const openEmbeddedTarget = () => openEmbeddedBenchTarget(setup);
const findOrCreateProject = (db: Kysely<DB>) => findOrCreateBenchProject(db, setup);
const importDataset = (db: Kysely<DB>, projectId: string, ds: Dataset, meter: ReturnType<Target['meter']>, target: Target): Promise<ImportFigures> =>
  importBenchDataset(db, projectId, ds, meter, target, { importMaxS: settings.importMaxS, profileImport: settings.profileImport, log });

/** The code measured: the commit, and whether src/ differs from it (others may be editing it). */
function codeVersion(): string {
  // Set when running a copy of a commit (git archive) that has no .git of its own.
  if (process.env.BENCH_CODE_VERSION) return process.env.BENCH_CODE_VERSION;
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
    return `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? `, src/ has ${dirty} uncommitted changes` : ', src/ clean'}`;
  } catch {
    return 'unknown (no git)';
  }
}

// ---------------------------------------------------------------------------------------------
// Sizes and counts

const COUNTED_TABLES = ['runs', 'run_ads', 'cited_urls', 'prompts', 'topics', 'run_rollup', 'subject_rollup', 'url_days', 'cell_pages'] as const;

async function tableFigures(db: Kysely<DB>): Promise<{ table: string; rows: number; totalMiB: number }[]> {
  const out = [];
  for (const name of COUNTED_TABLES) {
    const row = (
      await sql<{ rows: number; bytes: number }>`select (select count(*) from ${sql.table(name)})::int8 as rows,
        (select sum(pg_total_relation_size(relid)) from pg_partition_tree(${name}::regclass))::int8 as bytes`.execute(db)
    ).rows[0];
    out.push({ table: name, rows: Number(row?.rows ?? NaN), totalMiB: Math.round((Number(row?.bytes ?? NaN) / 1024 / 1024) * 10) / 10 });
  }
  return out;
}

/** Every table and index of the schema, and the part of it that is answer text (stored as kept: compressed, toasted). */
async function storageBytes(db: Kysely<DB>): Promise<{ allBytes: number; answerBytes: number; runs: number }> {
  const row = (
    await sql<{ all_bytes: string; answer_bytes: string; runs: string }>`
      select (select sum(pg_total_relation_size(c.oid)) from pg_class c join pg_namespace n on n.oid = c.relnamespace
                where n.nspname = current_schema() and c.relkind in ('r', 'm'))::int8 as all_bytes,
             (select coalesce(sum(pg_column_size(answer)), 0) from runs)::int8 as answer_bytes,
             (select count(*) from runs)::int8 as runs`.execute(db)
  ).rows[0]!;
  return { allBytes: Number(row.all_bytes), answerBytes: Number(row.answer_bytes), runs: Number(row.runs) };
}

async function statsState(db: Kysely<DB>): Promise<{ table: string; liveTuples: number; lastAnalyze: string }[]> {
  const rows = await sql<{ relname: string; n_live_tup: number; last_analyze: Date | null; last_autoanalyze: Date | null }>`
    select relname, n_live_tup::int8 as n_live_tup, last_analyze, last_autoanalyze from pg_stat_user_tables
    where relname in ('runs', 'run_rollup', 'subject_rollup', 'url_days', 'cell_pages', 'cited_urls') order by relname`.execute(db);
  return rows.rows.map((r) => {
    const at = [r.last_analyze, r.last_autoanalyze].filter((d): d is Date => d instanceof Date).sort((a, b) => b.getTime() - a.getTime())[0];
    return { table: r.relname, liveTuples: Number(r.n_live_tup), lastAnalyze: at ? at.toISOString() : 'never' };
  });
}

/** Server settings that bear on these figures. */
async function serverSettings(db: Kysely<DB>): Promise<string> {
  const rows = await sql<{ name: string; setting: string; unit: string | null }>`
    select name, setting, unit from pg_settings
    where name in ('server_version', 'autovacuum', 'shared_buffers', 'work_mem', 'jit', 'synchronous_commit', 'max_parallel_workers_per_gather')
    order by name`.execute(db);
  return rows.rows.map((r) => `${r.name}=${r.setting}${r.unit ? ` ${r.unit}` : ''}`).join(', ');
}

// ---------------------------------------------------------------------------------------------
// Latency

interface Case {
  name: string;
  url: string;
}

interface CaseResult extends Omit<LatencyStats, 'firstBody'> {
  name: string;
  url: string;
  summary: string;
}

async function benchCases(db: Kysely<DB>, project: Project, ds: Dataset): Promise<Case[]> {
  const engines = new Map((await db.selectFrom('engines').select(['id', 'key']).execute()).map((e) => [e.key, e.id]));
  const topic = await db.selectFrom('topics').select('id').where('project_id', '=', project.projectId).where('name', '=', 'CRM software').executeTakeFirstOrThrow();
  const chatgpt = engines.get('chatgpt');
  if (!chatgpt) throw new Error('no chatgpt engine');
  const competitor = project.competitorIds[0];
  if (!competitor) throw new Error('no competitor');
  const p = `/api/v1/projects/${project.projectId}`;
  const range90 = `from=${ds.firstDay}&to=${ds.endDay}`;
  const ts = `${p}/visibility/timeseries`;
  const rk = `${p}/visibility/ranking`;
  const ct = `${p}/citations`;
  return [
    { name: 'timeseries 28d', url: ts },
    { name: 'timeseries 28d engine', url: `${ts}?engineId=${chatgpt}` },
    { name: 'timeseries 28d topic+unbranded', url: `${ts}?topicId=${topic.id}&branded=false` },
    { name: 'timeseries 28d competitor', url: `${ts}?subjectType=competitor&subjectId=${competitor}` },
    { name: 'timeseries 90d', url: `${ts}?${range90}` },
    { name: 'ranking 28d', url: rk },
    { name: 'ranking 28d engine', url: `${rk}?engineId=${chatgpt}` },
    { name: 'ranking 28d topic+unbranded', url: `${rk}?topicId=${topic.id}&branded=false` },
    { name: 'ranking 90d', url: `${rk}?${range90}` },
    { name: 'citations 28d', url: ct },
    { name: 'citations 28d engine', url: `${ct}?engineId=${chatgpt}` },
    { name: 'citations 90d', url: `${ct}?${range90}` },
  ];
}

async function measureCases(app: FastifyInstance, bare: FastifyInstance, cases: Case[], headers: Record<string, string>): Promise<{ bareStart: CaseResult; bareEnd: CaseResult; cases: CaseResult[] }> {
  const options = { warmupRequests: settings.warmupRequests, requests: settings.requests, maxMs: settings.caseMaxMs };
  const run = async (target: FastifyInstance, c: Case, h: Record<string, string>): Promise<CaseResult> => {
    const { firstBody, ...stats } = await measureInject(target, c.url, { ...options, headers: h });
    const result = { name: c.name, url: c.url, summary: summarise(firstBody), ...stats };
    log(`  ${c.name.padEnd(32)} p50 ${String(stats.p50Ms).padStart(8)} ms  p99 ${String(stats.p99Ms).padStart(8)} ms  n ${stats.requests}${stats.failed ? `  FAILED ${stats.failed}: ${stats.firstError}` : ''}  | ${result.summary}`);
    return result;
  };
  const bareCase = { name: 'bare Fastify GET /bare', url: '/bare' };
  const bareStart = await run(bare, bareCase, {});
  const results: CaseResult[] = [];
  for (const c of cases) results.push(await run(app, c, headers));
  const bareEnd = await run(bare, { ...bareCase, name: 'bare Fastify GET /bare (again)' }, {});
  return { bareStart, bareEnd, cases: results };
}

// ---------------------------------------------------------------------------------------------
// --explain: each case's statements, and the plans of the slowest

interface Statement {
  sql: string;
  parameters: readonly unknown[];
  ms: number;
}

interface CaseQueries {
  name: string;
  statements: { sql: string; ms: number }[];
  totalMs: number;
}

async function explainCases(target: Target, cases: Case[], headers: Record<string, string>): Promise<{ perCase: CaseQueries[]; plans: { case: string; ms: number; sql: string; parameters: readonly unknown[]; plan: string }[] }> {
  let captured: Statement[] = [];
  const { db: logged, close } = target.loggedDb((event) => {
    if (event.level === 'query') captured.push({ sql: event.query.sql, parameters: event.query.parameters, ms: event.queryDurationMillis });
  });
  const app = await buildApp({ db: logged, now: () => new Date(`${settings.endDay}T12:00:00Z`) });
  await app.ready();
  const perCase: CaseQueries[] = [];
  const slowest: (Statement & { case: string })[] = [];
  try {
    for (const c of cases) {
      for (let i = 0; i < 3; i++) await app.inject({ method: 'GET', url: c.url, headers }); // warm this pool
      captured = [];
      const res = await app.inject({ method: 'GET', url: c.url, headers });
      if (res.statusCode !== 200) throw new Error(`${c.name}: HTTP ${res.statusCode}`);
      const statements = captured;
      perCase.push({ name: c.name, statements: statements.map((s) => ({ sql: s.sql, ms: round2(s.ms) })), totalMs: round2(statements.reduce((a, s) => a + s.ms, 0)) });
      for (const s of statements) slowest.push({ ...s, case: c.name });
    }
    // The slowest distinct statements (by text), each explained once with its parameters.
    slowest.sort((a, b) => b.ms - a.ms);
    const seen = new Set<string>();
    const plans = [];
    for (const s of slowest) {
      const shape = s.sql.replace(/\s+/g, ' ');
      if (seen.has(shape)) continue;
      seen.add(shape);
      const rows = await logged.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, buffers) ${s.sql}`, [...s.parameters]));
      plans.push({ case: s.case, ms: round2(s.ms), sql: s.sql, parameters: s.parameters, plan: rows.rows.map((r) => r['QUERY PLAN']).join('\n') });
      if (plans.length >= settings.explainTop) break;
    }
    return { perCase, plans };
  } finally {
    await app.close();
    await close();
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const ds = dataset({ scale: settings.scale, endDay: settings.endDay });
  const started = performance.now();
  const load = { start: loadavg(), afterImport: '', end: '' };
  log(`analytics bench: ${settings.db}, scale ${settings.scale}: ${ds.prompts} prompts x 7 engines x 3 locations x ${ds.days} days (${ds.firstDay} to ${ds.endDay}) = ${ds.runs} runs`);
  const code = codeVersion();
  log(`  code: ${code}; Node ${process.version}`);
  log(`  load average at start: ${load.start}`);
  const target = settings.db === 'postgres' ? await openPostgresTarget() : await openEmbeddedTarget();
  log(`  ${target.label}: ${target.where}`);
  try {
    const db = target.database.db;
    await migrateToLatest(db);
    const project = await findOrCreateProject(db);
    log(`  project ${project.projectId}${project.reused ? ' (reused)' : ''}`);

    log('import:');
    const imported = await importDataset(db, project.projectId, ds, target.meter(), target);
    load.afterImport = loadavg();
    if (!imported.skippedBecauseLoaded) {
      log(`  imported ${imported.runsImported} runs in ${imported.seconds} s: ${imported.runsPerSecond} runs/s${imported.aborted ? ' (STOPPED EARLY: partial data)' : ''}; load ${load.afterImport}`);
    }
    if (settings.analyze) {
      const a0 = performance.now();
      await sql`analyze`.execute(db);
      log(`  ANALYZE took ${((performance.now() - a0) / 1000).toFixed(1)} s`);
    }
    const tables = await tableFigures(db);
    const storage = await storageBytes(db);
    const sizeBytes = await target.sizeOnDiskBytes();
    const stats = await statsState(db);
    const server = await serverSettings(db);

    log(`latency: ${settings.requests} sequential requests per case after ${settings.warmupRequests} warm-up (at most ${settings.caseMaxMs / 1000} s per case), app.inject:`);
    const key = await createApiKey(db, { workspaceId: project.workspaceId, scopes: ['read'], rateLimit: 1_000_000, name: 'analytics bench' });
    const headers = { authorization: `Bearer ${key.key}` };
    const app = await buildApp({ db, now: () => new Date(`${settings.endDay}T12:00:00Z`) });
    await app.ready();
    const bare = buildBareApp();
    await bare.ready();
    const cases = await benchCases(db, project, ds);
    let latency;
    const meter = target.meter();
    meter.start(false);
    try {
      latency = await measureCases(app, bare, cases, headers);
    } finally {
      await app.close();
      await bare.close();
    }
    const latencyBusy = meter.stop();
    let explained;
    if (settings.explain) {
      log('explain: capturing the statements of each case ...');
      explained = await explainCases(target, cases, headers);
    }
    await db.deleteFrom('api_keys').where('id', '=', key.id).execute();
    load.end = loadavg();
    const memory = memoryOf(process.pid);

    // Report
    const title = `${target.label}, scale ${settings.scale} (${ds.runs} runs)`;
    log(`\n=== ${title}; code ${code}`);
    if (imported.skippedBecauseLoaded) log('import: skipped, the kept database already held the data');
    else
      log(
        `import: ${imported.runsImported} runs in ${imported.seconds} s = ${imported.runsPerSecond} runs/s (importRuns, default batch size; the generator alone takes ${imported.generationOnlySeconds} s for ${imported.jsonMiB} MiB of JSON)${imported.aborted ? ' PARTIAL' : ''}`,
      );
    log(`database size on disk: ${(sizeBytes / 1024 / 1024).toFixed(0)} MiB; peak RSS of this process: ${memory.peakMiB} MiB`);
    log(
      `bytes per run: ${Math.round(storage.allBytes / storage.runs)} with answer text, ${Math.round((storage.allBytes - storage.answerBytes) / storage.runs)} without (all tables and indexes: ${(storage.allBytes / 1024 / 1024).toFixed(0)} MiB, of which answer text ${(storage.answerBytes / 1024 / 1024).toFixed(0)} MiB, ${storage.runs} runs)`,
    );
    log(`load average (1/5/15 min): start ${load.start}; after import ${load.afterImport}; end ${load.end}`);
    log(`CPU during the import: ${describeBusy(imported.busy)}`);
    if (imported.profile) {
      const inDb = imported.profile.reduce((a, p) => a + p.seconds, 0);
      log(`import statements (--profile-import): ${round1(inDb)} s of ${imported.seconds} s waiting on the database; the rest is JavaScript (parsing, mention detection, URL classification, building the cube deltas)`);
      log(table(['statement', 'count', 'seconds', '% of import'], imported.profile.map((p) => [p.statement, p.count, p.seconds, p.share])));
    }
    log(`CPU during the latency cases: ${describeBusy(latencyBusy)}`);
    log(`server settings: ${server}`);
    log(`planner statistics: ${stats.map((s) => `${s.table} ${s.lastAnalyze === 'never' ? 'never analyzed' : `analyzed ${s.lastAnalyze}`}`).join('; ')}\n`);
    log(table(['table', 'rows', 'MiB (with indexes)'], tables.map((t) => [t.table, t.rows, t.totalMiB])));
    log('');
    const row = (r: CaseResult) => [r.name, r.requests, r.p50Ms, r.p99Ms, r.meanMs, r.maxMs, r.failed];
    log(table(['case', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'max ms', 'failed'], [row(latency.bareStart), ...latency.cases.map(row), row(latency.bareEnd)]));
    if (explained) {
      log('\nstatements per case (one request, logged Kysely on the same database):');
      log(table(['case', 'statements', 'sum ms', 'slowest ms', 'slowest statement'], explained.perCase.map((c) => {
        const top = [...c.statements].sort((a, b) => b.ms - a.ms)[0];
        return [c.name, c.statements.length, c.totalMs, top?.ms ?? 0, (top?.sql ?? '').replace(/\s+/g, ' ').slice(0, 90)];
      })));
      for (const p of explained.plans) {
        log(`\n--- ${p.ms} ms in "${p.case}":\n${p.sql}\nparameters: ${JSON.stringify(p.parameters)}\n${p.plan}`);
      }
    }
    log(`\nwhole run: ${((performance.now() - started) / 1000).toFixed(0)} s`);
    writeJsonOut({ settings, code, node: process.version, dataset: { prompts: ds.prompts, days: ds.days, runs: ds.runs, firstDay: ds.firstDay, endDay: ds.endDay }, target: { label: target.label, where: target.where }, imported, tables, storage, sizeBytes, stats, server, load, latencyBusy, memory, latency, explained });
  } finally {
    await target.cleanup();
  }
}

await main();
