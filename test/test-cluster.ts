import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../src/db/database.ts';
import { leaseCluster, type ClusterLease } from '../src/db/embedded/lease-cluster.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import type { DB } from '../src/db/types.ts';
import { pgTypes } from '../src/db/type-parsers.ts';

/**
 * The embedded PostgreSQL the tests share: one cluster per test run (kept up by the global setup,
 * test/global-setup.ts), one migrated template database, and a fresh database per test file (or
 * per `openTestDatabase()` call) copied from the template, dropped when closed.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const TEST_DATA_DIR = join(ROOT, '.tmp', 'test-db');
const MIGRATIONS_DIR = join(ROOT, 'src', 'db', 'migrations');
/** Serialises building the template between test processes. */
const TEMPLATE_LOCK = [0x5349_4748, 0x7465_6d70] as const;

/** The template's name changes with the migrations, so an edited migration never meets a stale template. */
export function templateName(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS_DIR, file)));
  return `tpl_${hash.digest('hex').slice(0, 12)}`;
}

/** Makes the migrated template unless it exists (templates of other migrations are dropped by the global setup). */
export async function ensureTemplate(lease: ClusterLease): Promise<string> {
  const name = templateName();
  const admin = new pg.Client(lease.connection('postgres'));
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock($1, $2)', [...TEMPLATE_LOCK]);
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) return name;
    await admin.query(`create database ${admin.escapeIdentifier(name)}`);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ ...lease.connection(name), max: 1 }) }) });
    try {
      await migrateToLatest(db);
    } catch (error) {
      await db.destroy();
      await admin.query(`drop database if exists ${admin.escapeIdentifier(name)}`);
      throw error;
    }
    await db.destroy();
    return name;
  } finally {
    await admin.end();
  }
}

/**
 * A fresh database on the shared embedded cluster, dropped (and the cluster let go) on close:
 * migrated (a copy of the template), or blank for a test that migrates it itself.
 */
export async function openEmbeddedTestDatabase(poolSize = 4, options: { blank?: boolean } = {}): Promise<Database> {
  const lease = await leaseCluster(TEST_DATA_DIR);
  const name = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  try {
    // Another test run (other migrations) may drop the template between the two steps: make it again.
    for (let attempt = 1; ; attempt++) {
      const template = options.blank ? 'template0' : await ensureTemplate(lease);
      const admin = new pg.Client(lease.connection('postgres'));
      await admin.connect();
      try {
        await admin.query(`create database ${admin.escapeIdentifier(name)} template ${admin.escapeIdentifier(template)}`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '3D000' || attempt === 3) throw error;
      } finally {
        await admin.end();
      }
    }
  } catch (error) {
    await lease.release();
    throw error;
  }
  const pool = new pg.Pool({ ...lease.connection(name), max: poolSize, types: pgTypes });
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    kind: 'embedded',
    async close() {
      await db.destroy();
      const admin = new pg.Client(lease.connection('postgres'));
      try {
        await admin.connect();
        await admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`);
      } finally {
        await admin.end().catch(() => undefined);
        await lease.release();
      }
    },
  };
}
