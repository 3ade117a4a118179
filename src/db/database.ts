import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './types.ts';
import { leaseCluster, type ClusterLease } from './embedded/lease-cluster.ts';
import { APP_DATABASE } from './embedded/layout.ts';
import { prepareDeclaredStatements } from './prepared.ts';
import { pgTypes } from './type-parsers.ts';

export type DatabaseKind = 'postgres' | 'embedded';

export interface Database {
  db: Kysely<DB>;
  kind: DatabaseKind;
  close(): Promise<void>;
}

/**
 * The service's database, chosen once: the PostgreSQL server of `DATABASE_URL`, else the embedded
 * PostgreSQL of the data directory. One engine, two ways to get it: the same migrations and queries.
 */
export async function openDatabase(options: { databaseUrl: string | undefined; dataDir: string }, poolSize = 10): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl, poolSize) : openEmbedded(options.dataDir, { poolSize });
}

/** A PostgreSQL server, by URL. */
export function openPostgres(url: string, poolSize = 10): Database {
  const db = kyselyOn(new pg.Pool({ connectionString: url, max: poolSize, types: pgTypes }));
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/**
 * A database of the embedded PostgreSQL in `dataDir` (started if no process runs it; see
 * embedded/lease-cluster.ts), created if missing. Closing lets go of the cluster: the last process
 * to let go stops it.
 */
export async function openEmbedded(dataDir: string, options: { poolSize?: number; database?: string } = {}): Promise<Database> {
  const lease = await leaseCluster(dataDir);
  const database = options.database ?? APP_DATABASE;
  try {
    await ensureDatabase(lease, database);
  } catch (error) {
    await lease.release();
    throw error;
  }
  const db = kyselyOn(new pg.Pool({ ...lease.connection(database), max: options.poolSize ?? 10, types: pgTypes }));
  return {
    db,
    kind: 'embedded',
    async close() {
      await db.destroy();
      await lease.release();
    },
  };
}

/** Creates a database of the cluster unless it exists; several processes may try at once. */
export async function ensureDatabase(lease: ClusterLease, name: string, template?: string): Promise<void> {
  const client = new pg.Client(lease.connection('postgres'));
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) return;
    const from = template ? ` template ${client.escapeIdentifier(template)}` : '';
    try {
      await client.query(`create database ${client.escapeIdentifier(name)}${from}`);
    } catch (error) {
      // 42P04: created meanwhile by another process; 23505: the same race, seen in the catalog.
      const code = (error as { code?: string }).code;
      if (code !== '42P04' && code !== '23505') throw error;
    }
  } finally {
    await client.end();
  }
}

function kyselyOn(pool: pg.Pool): Kysely<DB> {
  // An idle connection ends when the server stops or restarts; the pool replaces it on next use.
  pool.on('error', () => undefined);
  prepareDeclaredStatements(pool);
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}
