/**
 * Databases for the traffic and change-detection benchmarks (bench/ingest.ts, bench/beacon.ts,
 * bench/changes.ts): PGlite on disk in a fresh temporary directory, and, when DATABASE_URL is set,
 * a fresh database created on that (loopback) PostgreSQL server and dropped at the end. Both are
 * migrated to the latest schema.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { openPglite, openPostgres, type Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { GatedPGliteDialect } from '../../src/db/pglite-gate.ts';
import { pgTypes } from '../../src/db/type-parsers.ts';
import type { DB } from '../../src/db/types.ts';
import { ROOT } from './common.ts';

export interface ScratchDb {
  database: Database;
  /** 'PGlite on disk' or 'PostgreSQL 15.x'. */
  label: string;
  where: string;
  /** A second Kysely on the same database that reports every statement and its duration. */
  loggedDb(onQuery: (event: LogEvent) => void): { db: Kysely<DB>; close(): Promise<void> };
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export async function openScratchPglite(tag: string): Promise<ScratchDb> {
  const dir = mkdtempSync(join(tmpdir(), `sightline-bench-${tag}-`));
  const database = await openPglite(dir);
  await migrateToLatest(database.db);
  return {
    database,
    label: 'PGlite on disk',
    where: `${dir} (deleted at the end)`,
    // Not destroyed: destroying a PGlite dialect closes the PGlite instance, which is still in use.
    loggedDb: (onQuery) => ({ db: new Kysely<DB>({ dialect: new GatedPGliteDialect({ pglite: database.pglite }, database.gate), log: onQuery }), close: async () => {} }),
    close: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh database `sightline_bench_<tag>_<pid>` on DATABASE_URL's server; undefined when unset. */
export async function openScratchPostgres(tag: string, poolSize = 10): Promise<ScratchDb | undefined> {
  const baseUrl = process.env.DATABASE_URL?.trim();
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
  const database = openPostgres(url.toString(), poolSize);
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    await admin(`drop database if exists ${name} with (force)`);
    throw error;
  }
  const version = String((await admin('show server_version')).rows[0]?.server_version ?? '').split(' ')[0];
  return {
    database,
    label: `PostgreSQL ${version}`,
    where: `database ${name} on ${base.host} (dropped at the end)`,
    loggedDb: (onQuery) => {
      const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 2, types: pgTypes }) }), log: onQuery });
      return { db, close: () => db.destroy() };
    },
    close: async () => {
      await database.close();
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}

/** The 1, 5 and 15 minute load averages. */
export function loadavg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** The commit measured, and whether src/ has uncommitted changes (others may be editing it). */
export function codeVersion(): string {
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
