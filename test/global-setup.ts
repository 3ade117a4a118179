import pg from 'pg';
import { leaseCluster, type ClusterLease } from '../src/db/embedded/lease-cluster.ts';
import { processAlive } from '../src/db/embedded/postmaster.ts';
import { ensureTemplate, TEST_DATA_DIR } from './test-cluster.ts';

/**
 * `node --test --test-global-setup`: on the embedded database, starts the test cluster once for the
 * whole run and builds the migrated template before the first file needs it, so files only copy
 * it. Holding the cluster keeps it up between files; letting go at the end stops it. Databases
 * left by an interrupted earlier run, and templates of other migrations, are dropped. With DATABASE_URL there is nothing to do.
 */
let lease: ClusterLease | undefined;

export async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) return;
  lease = await leaseCluster(TEST_DATA_DIR);
  const template = await ensureTemplate(lease);
  const admin = new pg.Client(lease.connection('postgres'));
  await admin.connect();
  try {
    // Left by interrupted runs: test databases of processes gone (named t_<pid>_...), and templates
    // of other migrations. One in use is kept (DROP refuses it).
    const { rows } = await admin.query<{ datname: string }>(`select datname from pg_database where datname like 't\\_%' or (datname like 'tpl\\_%' and datname <> $1)`, [template]);
    const orphaned = rows.filter(({ datname }) => datname.startsWith('tpl_') || !processAlive(Number(datname.split('_')[1])));
    for (const { datname } of orphaned) await admin.query(`drop database if exists ${admin.escapeIdentifier(datname)}`).catch(() => undefined);
  } finally {
    await admin.end();
  }
}

export async function globalTeardown(): Promise<void> {
  await lease?.release();
}
