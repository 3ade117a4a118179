import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { DB } from './types.ts';
import { Gate, GatedPGliteDialect, serveOverSocket } from './pglite-gate.ts';
import { pgTypes, textParsers } from './type-parsers.ts';

export type DatabaseKind = 'postgres' | 'embedded' | 'embedded-via-server';

export interface Database {
  db: Kysely<DB>;
  kind: DatabaseKind;
  close(): Promise<void>;
}

/** A PostgreSQL server, by URL. */
export function openPostgres(url: string, poolSize = 10): Database {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, types: pgTypes });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/** PGlite in this process. `dataDir` undefined means in memory (tests). */
export async function openPglite(dataDir: string | undefined): Promise<Database & { pglite: PGlite; gate: Gate }> {
  const pglite = await PGlite.create(dataDir, { parsers: textParsers });
  const gate = new Gate();
  const db = new Kysely<DB>({ dialect: new GatedPGliteDialect({ pglite }, gate) });
  return { db, kind: 'embedded', pglite, gate, close: () => db.destroy() };
}

/**
 * The socket through which the running server lends its embedded database to other processes.
 * pg connects to `<dir>/.s.PGSQL.<port>`; Unix socket paths are limited to about 100 bytes, so a
 * deep data directory gets a short directory under the system's temp dir instead.
 */
export function embeddedSocket(dataDir: string): { dir: string; port: number; path: string } {
  const port = 5432;
  let dir = join(dataDir, '.socket');
  if (join(dir, `.s.PGSQL.${port}`).length > 100) {
    const hash = createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
    dir = join(tmpdir(), `sightline-${hash}`);
  }
  return { dir, port, path: join(dir, `.s.PGSQL.${port}`) };
}

/**
 * The server's embedded database: on disk, owned by this process (a lock file says so), and served
 * on a local socket so the CLI can work through it while the server runs.
 */
export async function openEmbeddedForServer(dataDir: string): Promise<Database> {
  mkdirSync(dataDir, { recursive: true });
  const unlock = acquireDataDirLock(dataDir);
  let opened: Awaited<ReturnType<typeof openPglite>>;
  try {
    opened = await openPglite(dataDir);
  } catch (error) {
    unlock();
    throw error;
  }
  const socket = embeddedSocket(dataDir);
  mkdirSync(socket.dir, { recursive: true });
  rmSync(socket.path, { force: true }); // we hold the lock: any socket file left is stale
  let server: Server;
  try {
    server = await serveOverSocket(opened.pglite, opened.gate, socket.path);
  } catch (error) {
    await opened.close();
    unlock();
    throw error;
  }
  return {
    db: opened.db,
    kind: 'embedded',
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(socket.path, { force: true });
      await opened.close();
      unlock();
    },
  };
}

/**
 * The database for a short-lived command (the CLI): a server when configured; else the running
 * server's embedded database through its socket; else the data directory itself, locked so a
 * server started meanwhile waits rather than opening it twice.
 */
export async function openForCommand(options: { databaseUrl: string | undefined; dataDir: string }): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, 2);
  const socket = embeddedSocket(options.dataDir);
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (await socketAnswers(socket.path)) return openViaServer(socket.dir, socket.port);
    mkdirSync(options.dataDir, { recursive: true });
    const unlock = tryDataDirLock(options.dataDir);
    if (unlock) {
      try {
        const opened = await openPglite(options.dataDir);
        return {
          db: opened.db,
          kind: 'embedded',
          async close() {
            await opened.close();
            unlock();
          },
        };
      } catch (error) {
        unlock();
        throw error;
      }
    }
    // Another process holds the data directory but does not serve it (yet): a server starting.
    if (Date.now() > deadline) {
      throw new Error(
        `the embedded database in ${options.dataDir} is held by another process that does not serve it; stop that process or wait for it`,
      );
    }
    await sleep(200);
  }
}

function openViaServer(dir: string, port: number): Database {
  const pool = new pg.Pool({ host: dir, port, user: 'postgres', database: 'postgres', max: 1, types: pgTypes });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'embedded-via-server', close: () => db.destroy() };
}

function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const LOCK_FILE = 'sightline.lock';

function acquireDataDirLock(dataDir: string): () => void {
  const unlock = tryDataDirLock(dataDir);
  if (!unlock) {
    const holder = readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim();
    throw new Error(
      `the embedded database in ${dataDir} is already open in process ${holder}; PGlite allows one process per data directory`,
    );
  }
  return unlock;
}

/** Takes the data directory's lock file, clearing one left by a dead process; undefined if held. */
function tryDataDirLock(dataDir: string): (() => void) | undefined {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let pid = NaN;
      try {
        pid = Number(readFileSync(path, 'utf8').trim());
      } catch {
        continue; // removed meanwhile: try again
      }
      if (processAlive(pid)) return undefined;
      rmSync(path, { force: true });
    }
  }
  return undefined;
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
