/**
 * The analytics bench project on a database: shared by bench/analytics.ts and bench/reads.ts.
 *
 * - The database: `--db=postgres`, a database on the (loopback) server of DATABASE_URL; or
 *   `--db=embedded`, the embedded PostgreSQL in a data directory under `<repo>/.tmp/`.
 *   With `keep`, both scripts use the same names, so one script can reuse what the other imported:
 *   the database `sightline_bench_analytics_s<scale>` or the data directory
 *   `.tmp/bench-analytics-embedded-s<scale>` (its postmaster is stopped at the end all the same).
 *   Without it, a scratch database (dropped at the end) or a fresh data directory
 *   `.tmp/bench-<tag>-<pid>` (stopped and deleted at the end).
 * - The project: the workspace `Analytics bench (scale <scale>)` with the brand and competitors of
 *   lib/analytics-data.ts (found again with `keep`).
 * - The import: `importRuns` over the generated JSON Lines, with progress by tenth, an optional time
 *   limit and an optional profile of the statements (see analytics.ts's settings); skipped when the
 *   project already holds every run.
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely, PostgresDialect, sql, type LogEvent } from 'kysely';
import pg from 'pg';
import { openEmbedded, openPostgres, type Database } from '../../src/db/database.ts';
import { APP_DATABASE, clusterLayout, ROLE } from '../../src/db/embedded/layout.ts';
import { pgTypes } from '../../src/db/type-parsers.ts';
import type { DB } from '../../src/db/types.ts';
import { addCompetitor } from '../../src/projects/add-competitor.ts';
import { createProject } from '../../src/projects/create-project.ts';
import { importRuns, type ImportResult } from '../../src/runs/import-runs.ts';
import { createWorkspace } from '../../src/workspaces/create-workspace.ts';
import { BRAND, COMPETITORS, type Dataset } from './analytics-data.ts';
import { benchDataDir, childrenOf, pidsMatching, postmasterPid, removeDataDir, stopLeftoverPostmaster } from './cluster.ts';
import { ROOT, round1 } from './common.ts';
import { ContentionMeter, type Busy } from './contention.ts';
import { loggedEmbeddedDb, serverVersion } from './scratch-db.ts';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
/** PostgreSQL's server-wide processes: they work for every database on the server. */
const PG_SHARED = /^postgres: \S+: (checkpointer|background writer|walwriter|autovacuum launcher|logical replication launcher)/;

export interface SetupOptions {
  scale: number;
  /** Keep the data under the shared names and reuse it next time. */
  keep: boolean;
  /** Names the scratch data directory `.tmp/bench-<tag>-<pid>` (without `keep`). */
  tag: string;
  /** The scratch database's name on the server (without `keep`). */
  scratchName: string;
}

export const scaleTag = (scale: number) => `s${String(scale).replace('.', '_')}`;
export const workspaceName = (scale: number) => `Analytics bench (scale ${scale})`;
/** The kept database on the server, shared by analytics.ts and reads.ts. */
export const keptDatabaseName = (scale: number) => `sightline_bench_analytics_${scaleTag(scale)}`;
/** The kept embedded data directory, shared by analytics.ts and reads.ts. */
export const keptDataDir = (scale: number) => join(ROOT, '.tmp', `bench-analytics-embedded-${scaleTag(scale)}`);

export interface Target {
  database: Database;
  label: string;
  where: string;
  /** A second Kysely on the same database that reports every statement (for --explain). */
  loggedDb(onQuery: (event: LogEvent) => void): { db: Kysely<DB>; close(): Promise<void> };
  /** Splits the machine's CPU time into this benchmark's and other work's. */
  meter(): ContentionMeter;
  /**
   * The processes doing this database's work, now: the embedded postmaster and its children, or the
   * server's backends on the bench database (the server's shared processes are left out).
   */
  databasePids(): number[];
  sizeOnDiskBytes(): Promise<number>;
  cleanup(): Promise<void>;
}

export async function openPostgresTarget(options: SetupOptions): Promise<Target> {
  const baseUrl = process.env.DATABASE_URL?.trim();
  if (!baseUrl) throw new Error('--db=postgres needs DATABASE_URL (a server to create the bench database on), e.g. postgres://postgres@127.0.0.1:5432/postgres');
  const base = new URL(baseUrl);
  if (!LOOPBACK.has(base.hostname)) throw new Error(`this benchmark only uses a PostgreSQL on loopback, not ${base.hostname}`);
  const name = options.keep ? keptDatabaseName(options.scale) : options.scratchName;
  const admin = async (statements: string[]) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      const out = [];
      for (const s of statements) out.push(await client.query(s));
      return out;
    } finally {
      await client.end();
    }
  };
  const [found] = await admin([`select 1 from pg_database where datname = '${name}'`]);
  if ((found?.rowCount ?? 0) > 0 && !options.keep) await admin([`drop database ${name} with (force)`]);
  if ((found?.rowCount ?? 0) === 0 || !options.keep) await admin([`create database ${name}`]);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const database = openPostgres(url.toString());
  const version = await serverVersion(database.db);
  const backends = new RegExp(`^postgres: \\S+: (\\S+ ${name} |autovacuum worker ${name}\\b)`);
  return {
    database,
    label: `PostgreSQL ${version.major} server`,
    where: `database ${name} on ${base.host}${options.keep ? ' (kept)' : ' (dropped at the end)'}`,
    loggedDb: (onQuery) => {
      const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 10, types: pgTypes }) }), log: onQuery });
      return { db, close: () => db.destroy() };
    },
    meter: () => new ContentionMeter({ backend: backends, shared: PG_SHARED }),
    databasePids: () => pidsMatching(backends),
    sizeOnDiskBytes: async () => (await sql<{ n: number }>`select pg_database_size(current_database())::int8 as n`.execute(database.db)).rows[0]?.n ?? NaN,
    cleanup: async () => {
      await database.close();
      if (!options.keep) await admin([`drop database ${name} with (force)`]);
    },
  };
}

export async function openEmbeddedTarget(options: SetupOptions): Promise<Target & { dataDir: string }> {
  // Under .tmp/ (gitignored): the postmaster's account must reach it (see lib/cluster.ts).
  let dir: string;
  if (options.keep) {
    dir = keptDataDir(options.scale);
    mkdirSync(dir, { recursive: true });
  } else {
    dir = benchDataDir(options.tag);
  }
  let opened: Database;
  try {
    opened = await openEmbedded(dir);
  } catch (error) {
    await stopLeftoverPostmaster(dir);
    if (!options.keep) removeDataDir(dir);
    throw error;
  }
  const version = await serverVersion(opened.db);
  return {
    dataDir: dir,
    database: opened,
    label: `embedded PostgreSQL ${version.major}`,
    where: `PostgreSQL ${version.full} in ${dir}${options.keep ? ' (kept)' : ' (stopped and deleted at the end)'}`,
    loggedDb: (onQuery) => loggedEmbeddedDb(dir, APP_DATABASE, onQuery, 10),
    // Only this cluster's processes: its backends on the app database, the rest of it as shared.
    meter: () => new ContentionMeter({ backend: new RegExp(`^postgres: (${ROLE} ${APP_DATABASE} |autovacuum worker ${APP_DATABASE}\\b)`), family: postmasterPid(dir) ?? -1 }),
    databasePids: () => {
      const pm = postmasterPid(dir);
      return pm === undefined ? [] : [pm, ...childrenOf(pm)];
    },
    sizeOnDiskBytes: async () => directorySize(clusterLayout(dir).pgdata),
    cleanup: async () => {
      try {
        await opened.close();
      } finally {
        await stopLeftoverPostmaster(dir);
        if (!options.keep) removeDataDir(dir);
      }
    },
  };
}

export function directorySize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directorySize(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// The project and its runs

export interface Project {
  workspaceId: string;
  projectId: string;
  competitorIds: string[];
  reused: boolean;
}

/** The bench workspace and project: found again with `keep`, else made (brand and competitors). */
export async function findOrCreateProject(db: Kysely<DB>, options: { scale: number; keep: boolean }): Promise<Project> {
  if (options.keep) {
    const existing = await db
      .selectFrom('projects as p')
      .innerJoin('workspaces as w', 'w.id', 'p.workspace_id')
      .select(['p.id', 'p.workspace_id'])
      .where('w.name', '=', workspaceName(options.scale))
      .where('p.name', '=', BRAND.name)
      .executeTakeFirst();
    if (existing) {
      const competitors = await db.selectFrom('competitors').select('id').where('project_id', '=', existing.id).orderBy('created_at').orderBy('id').execute();
      return { workspaceId: existing.workspace_id, projectId: existing.id, competitorIds: competitors.map((c) => c.id), reused: true };
    }
  }
  const { id: workspaceId } = await createWorkspace(db, { name: workspaceName(options.scale), plan: 'growth' });
  const { id: projectId } = await createProject(db, workspaceId, BRAND);
  const competitorIds: string[] = [];
  for (const competitor of COMPETITORS) competitorIds.push((await addCompetitor(db, projectId, competitor)).id);
  return { workspaceId, projectId, competitorIds, reused: false };
}

export const countRuns = async (db: Kysely<DB>, projectId: string) =>
  Number((await db.selectFrom('runs').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', projectId).executeTakeFirstOrThrow()).n);

class ImportTimeLimit extends Error {}

export interface ImportFigures {
  skippedBecauseLoaded: boolean;
  aborted: boolean;
  linesPulled: number;
  runsImported: number;
  seconds: number;
  runsPerSecond: number;
  generationOnlySeconds: number;
  jsonMiB: number;
  result: ImportResult | undefined;
  /** Throughput per tenth of the data set, to show whether it degrades as tables grow. */
  tenths: { lines: number; seconds: number; runsPerSecond: number; load: string }[];
  busy: Busy | undefined;
  /** With --profile-import: database time per kind of statement. */
  profile: { statement: string; count: number; seconds: number; share: number }[] | undefined;
}

export interface ImportOptions {
  /** Stop the import after this many seconds (0: no limit); the batches committed stay. */
  importMaxS: number;
  /** Import through a logging Kysely and sum the database time of each kind of statement. */
  profileImport: boolean;
  log: (line: string) => void;
}

/** The kind of a statement, for --profile-import: its verb and table. */
function statementKind(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim().toLowerCase();
  const m = /^(insert into|select .*? from|update|delete from) "?([a-z_]+)"?/.exec(t);
  if (m) return `${m[1]!.startsWith('select') ? 'select' : m[1]} ${m[2]}`;
  return t.split(' ')[0] ?? t;
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Imports the data set into the project with `importRuns`, unless it already holds every run. */
export async function importDataset(db: Kysely<DB>, projectId: string, ds: Dataset, meter: ContentionMeter, target: Target, options: ImportOptions): Promise<ImportFigures> {
  const { log } = options;
  // The generator alone, so its share of the import time is known.
  const g0 = performance.now();
  let bytes = 0;
  for (const line of ds.lines()) bytes += line.length + 1;
  const generationOnlySeconds = (performance.now() - g0) / 1000;
  const jsonMiB = bytes / 1024 / 1024;
  log(`  generator alone: ${ds.runs} lines (${jsonMiB.toFixed(0)} MiB of JSON) in ${generationOnlySeconds.toFixed(1)} s`);

  const before = await countRuns(db, projectId);
  if (before === ds.runs) {
    log(`  the database already holds all ${before} runs: import skipped (--keep)`);
    return { skippedBecauseLoaded: true, aborted: false, linesPulled: 0, runsImported: 0, seconds: 0, runsPerSecond: 0, generationOnlySeconds, jsonMiB, result: undefined, tenths: [], busy: undefined, profile: undefined };
  }
  if (before > 0) log(`  the database holds ${before} of ${ds.runs} runs: importing again (existing ids are skipped)`);

  const tenths: ImportFigures['tenths'] = [];
  const every = Math.max(1, Math.round(ds.runs / 10));
  const t0 = performance.now();
  const deadline = options.importMaxS > 0 ? t0 + options.importMaxS * 1000 : Infinity;
  let pulled = 0;
  let lastT = t0;
  let lastPulled = 0;
  function* withProgress(lines: Iterable<string>): Generator<string> {
    for (const line of lines) {
      pulled++;
      if (pulled % every === 0) {
        const at = performance.now();
        const tenth = { lines: pulled, seconds: round1((at - t0) / 1000), runsPerSecond: Math.round((pulled - lastPulled) / ((at - lastT) / 1000)), load: loadavg() };
        tenths.push(tenth);
        log(`  ${String(Math.round((100 * pulled) / ds.runs)).padStart(3)}%  ${pulled} lines  ${tenth.seconds} s  ${tenth.runsPerSecond} runs/s over the last tenth  load ${tenth.load}`);
        lastT = at;
        lastPulled = pulled;
      }
      if (performance.now() > deadline) throw new ImportTimeLimit(`import stopped by --import-max-s=${options.importMaxS}`);
      yield line;
    }
  }
  let result: ImportResult | undefined;
  let aborted = false;
  const profile = new Map<string, { count: number; ms: number }>();
  const logged = options.profileImport
    ? target.loggedDb((event) => {
        const kind = statementKind(event.query.sql);
        const p = profile.get(kind) ?? { count: 0, ms: 0 };
        profile.set(kind, p);
        p.count++;
        p.ms += event.queryDurationMillis;
      })
    : undefined;
  meter.start();
  try {
    result = await importRuns(logged?.db ?? db, projectId, withProgress(ds.lines()));
  } catch (error) {
    if (!(error instanceof ImportTimeLimit)) throw error;
    aborted = true;
    log(`  ${error.message} after ${pulled} lines`);
  }
  const seconds = (performance.now() - t0) / 1000;
  const busy = meter.stop();
  await logged?.close();
  const runsImported = (await countRuns(db, projectId)) - before;
  if (result && (result.rejected > 0 || result.errors.length > 0)) log(`  warning: ${result.rejected} lines rejected, first: ${JSON.stringify(result.errors[0])}`);
  return {
    skippedBecauseLoaded: false,
    aborted,
    linesPulled: pulled,
    runsImported,
    seconds: round1(seconds),
    runsPerSecond: Math.round(runsImported / seconds),
    generationOnlySeconds: round1(generationOnlySeconds),
    jsonMiB: Math.round(jsonMiB),
    result: result ? { ...result, errors: result.errors.slice(0, 5) } : undefined,
    tenths,
    busy,
    profile: logged
      ? [...profile.entries()]
          .map(([statement, p]) => ({ statement, count: p.count, seconds: round1(p.ms / 1000), share: Math.round((p.ms / 1000 / seconds) * 1000) / 10 }))
          .sort((a, b) => b.seconds - a.seconds)
      : undefined,
  };
}
