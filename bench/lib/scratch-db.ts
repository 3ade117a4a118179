/**
 * Databases for the traffic and change-detection benchmarks (bench/ingest.ts, bench/beacon.ts,
 * bench/changes.ts) and bench/embedded.ts: the embedded PostgreSQL in a fresh data directory under
 * `<repo>/.tmp/` (stopped and deleted at the end), and, when DATABASE_URL is set, a fresh database
 * created on that (loopback) PostgreSQL server and dropped at the end. Both are migrated to the
 * latest schema.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Kysely, PostgresDialect, sql, type LogEvent } from 'kysely';
import pg from 'pg';
import { openEmbedded, openPostgres, type Database } from '../../src/db/database.ts';
import { leaseCluster } from '../../src/db/embedded/lease-cluster.ts';
import { APP_DATABASE } from '../../src/db/embedded/layout.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { pgTypes } from '../../src/db/type-parsers.ts';
import type { DB } from '../../src/db/types.ts';
import { benchDataDir, removeDataDir, stopLeftoverPostmaster } from './cluster.ts';
import { ROOT } from './common.ts';

export interface ScratchDb {
  database: Database;
  /** 'embedded PostgreSQL 18' or 'PostgreSQL 15 server'. */
  label: string;
  where: string;
  /** A second Kysely on the same database that reports every statement and its duration. */
  loggedDb(onQuery: (event: LogEvent) => void): { db: Kysely<DB>; close(): Promise<void> };
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** The server's version: its major number for labels, the full one for notes. */
export async function serverVersion(db: Kysely<DB>): Promise<{ major: number; full: string }> {
  const row = (await sql<{ num: string; full: string }>`select current_setting('server_version_num') as num, current_setting('server_version') as full`.execute(db)).rows[0];
  return { major: Math.floor(Number(row?.num ?? 0) / 10_000), full: String(row?.full ?? '').split(' ')[0] ?? '' };
}

/**
 * A statement-logging Kysely on a database of the embedded cluster of `dataDir`, through a lease of
 * its own (released on close; the cluster keeps running while another user holds it).
 */
export function loggedEmbeddedDb(dataDir: string, database: string, onQuery: (event: LogEvent) => void, poolSize = 2): { db: Kysely<DB>; close(): Promise<void> } {
  const lease = leaseCluster(dataDir);
  lease.catch(() => undefined); // a failure surfaces on the first query
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({
      pool: async () => {
        const pool = new pg.Pool({ ...(await lease).connection(database), max: poolSize, types: pgTypes });
        pool.on('error', () => undefined);
        return pool;
      },
    }),
    log: onQuery,
  });
  return {
    db,
    close: async () => {
      await db.destroy();
      await (await lease.catch(() => undefined))?.release();
    },
  };
}

/** The embedded PostgreSQL in a fresh data directory `<repo>/.tmp/bench-<tag>-<pid>`, migrated. */
export async function openScratchEmbedded(tag: string, poolSize = 10): Promise<ScratchDb> {
  const dir = benchDataDir(tag);
  let database: Database;
  try {
    database = await openEmbedded(dir, { poolSize });
    await migrateToLatest(database.db);
  } catch (error) {
    await stopLeftoverPostmaster(dir);
    removeDataDir(dir);
    throw error;
  }
  const version = await serverVersion(database.db);
  return {
    database,
    label: `embedded PostgreSQL ${version.major}`,
    where: `embedded PostgreSQL ${version.full} in ${dir} (stopped and deleted at the end)`,
    loggedDb: (onQuery) => loggedEmbeddedDb(dir, APP_DATABASE, onQuery),
    close: async () => {
      try {
        await database.close();
      } finally {
        await stopLeftoverPostmaster(dir);
        removeDataDir(dir);
      }
    },
  };
}

export interface ScratchServerDatabase {
  /** The URL of the new, empty database. */
  url: string;
  name: string;
  /** 'PostgreSQL 15 server'. */
  label: string;
  where: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database `sightline_bench_<tag>_<pid>` on the loopback server of `baseUrl`
 * (DATABASE_URL by default); undefined when there is none.
 */
export async function createScratchServerDatabase(tag: string, baseUrl = process.env.DATABASE_URL?.trim()): Promise<ScratchServerDatabase | undefined> {
  if (!baseUrl) return undefined;
  const base = new URL(baseUrl);
  if (!LOOPBACK.has(base.hostname)) throw new Error(`these benchmarks only use a PostgreSQL on loopback, not ${base.hostname}`);
  const name = `sightline_bench_${tag}_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      return await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`drop database if exists ${name} with (force)`);
  await admin(`create database ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const { rows } = await admin(`select current_setting('server_version_num') as num, current_setting('server_version') as full`);
  const major = Math.floor(Number(rows[0]?.num ?? 0) / 10_000);
  const full = String(rows[0]?.full ?? '').split(' ')[0];
  return {
    url: url.toString(),
    name,
    label: `PostgreSQL ${major} server`,
    where: `database ${name} on the PostgreSQL ${full} server at ${base.host} (dropped at the end)`,
    drop: async () => {
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

/** A fresh database `sightline_bench_<tag>_<pid>` on DATABASE_URL's server, migrated; undefined when unset. */
export async function openScratchPostgres(tag: string, poolSize = 10): Promise<ScratchDb | undefined> {
  const scratch = await createScratchServerDatabase(tag);
  if (!scratch) return undefined;
  const database = openPostgres(scratch.url, poolSize);
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    await scratch.drop();
    throw error;
  }
  return {
    database,
    label: scratch.label,
    where: scratch.where,
    loggedDb: (onQuery) => {
      const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: scratch.url, max: 2, types: pgTypes }) }), log: onQuery });
      return { db, close: () => db.destroy() };
    },
    close: async () => {
      await database.close();
      await scratch.drop();
    },
  };
}

/** The 1, 5 and 15 minute load averages. */
export function loadavg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** The commit measured, and whether src/ has uncommitted changes (others may be editing it). */
export function codeVersion(): string {
  // Set when running a copy of a commit (git archive) that has no .git of its own.
  if (process.env.BENCH_CODE_VERSION) return process.env.BENCH_CODE_VERSION;
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--', 'src').split('\n').filter(Boolean).length;
    return `commit ${git('rev-parse', '--short', 'HEAD')}${dirty ? `, src/ has ${dirty} uncommitted changes` : ', src/ clean'}`;
  } catch {
    return 'unknown (no git)';
  }
}

/** Median of numbers (NaN for none). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
