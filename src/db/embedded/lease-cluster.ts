import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { findPostgresBinaries, type PostgresBinaries } from './binaries.ts';
import { initialiseCluster } from './initialise-cluster.ts';
import { clusterLayout, ROLE, SOCKET_PORT, type ClusterLayout } from './layout.ts';
import { postmasterUser, type OsUser } from './os-user.ts';
import { clearForeignLockFiles, isPostmasterOf, processAlive, readPostmasterPid, spawnPostmaster, stopPostmaster } from './postmaster.ts';

/** A process's hold on the embedded cluster: while held, the cluster runs. */
export interface ClusterLease {
  /** Connection settings for one of the cluster's databases (over its Unix socket). */
  connection(database: string): pg.ClientConfig;
  /** Lets go; the last process to let go stops the cluster. Idempotent. */
  release(): Promise<void>;
}

/**
 * The advisory lock that says "a sightline process uses this cluster". Every user holds it shared,
 * on a session of its own in the `postgres` database, for as long as it uses the cluster; the
 * session (and the lock) ends with the process, however it ends, SIGKILL included.
 */
const PRESENCE_LOCK = [0x5349_4748, 0x544c_494e] as const;
/** A live postmaster that neither answers nor exits for this long (and is not recovering) is hung. */
const HUNG_AFTER_MS = 15_000;

/**
 * Joins the embedded PostgreSQL of a data directory, starting it when no process runs it:
 * 1. initialise: directories, password and cluster (initdb) on first use;
 * 2. attach: connect over the socket and take the presence lock shared;
 * 3. if that fails, bring the postmaster up (start it, wait for one starting, recover a stale or
 *    hung one) and attach again.
 * Whichever process needs the cluster first starts it; the others join it; the postmaster is a
 * process of its own, so it serves them all whoever started it (a server "adopts" a cluster a CLI
 * command started simply by holding the lock too). `release` stops it when no one else holds the lock.
 */
export async function leaseCluster(dataDir: string, options: { timeoutMs?: number; hungAfterMs?: number } = {}): Promise<ClusterLease> {
  const layout = clusterLayout(dataDir);
  const binaries = await findPostgresBinaries();
  const user = postmasterUser();
  const password = await initialiseCluster(layout, binaries, user);
  const base = { host: layout.socketDir, port: SOCKET_PORT, user: ROLE, password };
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const answers = () => probe(base);

  let presence = await attach(base);
  while (!presence) {
    if (Date.now() > deadline) throw new Error(`the embedded PostgreSQL in ${layout.dataDir} did not become available; see ${layout.logFile}`);
    await bringUp(layout, binaries, user, answers, deadline, options.hungAfterMs ?? HUNG_AFTER_MS);
    presence = await attach(base);
  }
  const held = presence;
  let released: Promise<void> | undefined;
  return {
    connection: (database) => ({ ...base, database }),
    release: () => (released ??= leave(held, layout)),
  };
}

async function bringUp(
  layout: ClusterLayout,
  binaries: PostgresBinaries,
  user: OsUser | undefined,
  answers: () => Promise<boolean>,
  deadline: number,
  hungAfterMs: number,
): Promise<void> {
  const running = readPostmasterPid(layout.pgdata);
  if (running && processAlive(running.pid) && isPostmasterOf(running.pid, layout.pgdata)) {
    // Ours, but not letting us in: starting (perhaps recovering after a crash), or stopping for a
    // last user who left. Wait until it answers or exits; one that does neither is stopped.
    const hungAt = Date.now() + hungAfterMs;
    while (processAlive(running.pid) && Date.now() < deadline) {
      if (await answers()) return;
      const status = readPostmasterPid(layout.pgdata)?.status ?? '';
      if (status !== 'starting' && Date.now() > hungAt) {
        await stopPostmaster(running.pid, 2_000);
        return;
      }
      await sleep(50);
    }
    return;
  }
  clearForeignLockFiles(layout);
  await spawnPostmaster(layout, binaries, user, answers, deadline);
}

/** Connects and takes the presence lock shared; undefined while the cluster is not available. */
async function attach(base: pg.ClientConfig): Promise<pg.Client | undefined> {
  const client = new pg.Client({ ...base, database: 'postgres', application_name: 'sightline (presence)', connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined); // the session ends with the postmaster; nothing to do
  try {
    await client.connect();
    // A last user stopping the cluster holds the lock exclusively: wait for the outcome, then retry.
    await client.query(`set lock_timeout = '5s'`);
    await client.query('select pg_advisory_lock_shared($1, $2)', [...PRESENCE_LOCK]);
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    if (unavailable(error)) return undefined;
    throw describe(error);
  }
}

/** Lets go of the lock; if no other process holds it, stops the postmaster. */
async function leave(presence: pg.Client, layout: ClusterLayout): Promise<void> {
  try {
    await presence.query('select pg_advisory_unlock_shared($1, $2)', [...PRESENCE_LOCK]);
    const { rows } = await presence.query<{ last: boolean }>('select pg_try_advisory_lock($1, $2) as last', [...PRESENCE_LOCK]);
    if (rows[0]?.last) {
      // Holding the lock exclusively, no one can join until the postmaster is gone; a process
      // trying meanwhile starts it again.
      const running = readPostmasterPid(layout.pgdata);
      if (running) await stopPostmaster(running.pid);
    }
  } catch {
    // The postmaster is gone already (stopped by another process, or killed).
  } finally {
    await presence.end().catch(() => undefined);
  }
}

async function probe(base: pg.ClientConfig): Promise<boolean> {
  const client = new pg.Client({ ...base, database: 'postgres', connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    if (unavailable(error)) return false;
    throw describe(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Errors that mean "not available yet": no socket, refused, starting up or shutting down (57P03,
 * 57P01), a connection cut, the presence lock held by a stopping process (55P03).
 */
function unavailable(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === undefined || ['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', '57P03', '57P01', '55P03'].includes(String(code));
}

function describe(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  if (code === '28P01') {
    return new Error('the embedded PostgreSQL refused the password in its data directory (pg-password): restore that file, or remove the data directory to start afresh');
  }
  return error instanceof Error ? error : new Error(String(error));
}
