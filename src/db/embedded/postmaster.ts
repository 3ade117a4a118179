import { spawn, execFileSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PostgresBinaries } from './binaries.ts';
import { postgresEnv, reachHint } from './initialise-cluster.ts';
import { SOCKET_PORT, type ClusterLayout } from './layout.ts';
import type { OsUser } from './os-user.ts';

/** What `postmaster.pid` says: the postmaster's process id and its state. */
export interface PostmasterPid {
  pid: number;
  /** `starting`, `stopping`, `ready` or `standby` (PostgreSQL's own words); '' while unknown. */
  status: string;
}

export function readPostmasterPid(pgdata: string): PostmasterPid | undefined {
  let text: string;
  try {
    text = readFileSync(join(pgdata, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, status: (lines[7] ?? '').trim() };
}

/** Whether a process runs (a zombie, dead but not yet reaped, does not). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true; // no /proc here: kill(0) said it runs
  }
}

/**
 * Whether a live process is the postmaster of this cluster, rather than an unrelated process that
 * was given the PID a dead postmaster left in its lock file (common after a container restart).
 * Where the command line cannot be read, it is assumed to be ours: waiting is the safe mistake.
 */
export function isPostmasterOf(pid: number, pgdata: string): boolean {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    try {
      argv = execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { stdio: 'pipe' }).toString().trim().split(/\s+/);
    } catch {
      return true;
    }
  }
  return /(^|\/)postgres$/.test(argv[0] ?? '') && argv.includes(pgdata);
}

/**
 * Starts the cluster's postmaster as a process of its own (its own session, output to the log
 * file), so it outlives the process that started it and serves every process of the data
 * directory. Resolves when it accepts connections, or when another process's postmaster holds the
 * data directory (it will accept them soon); rejects with the log's last lines if it fails.
 */
export async function spawnPostmaster(
  layout: ClusterLayout,
  binaries: PostgresBinaries,
  user: OsUser | undefined,
  answers: () => Promise<boolean>,
  deadline: number,
): Promise<void> {
  rotateLog(layout.logFile);
  const logFd = openSync(layout.logFile, 'a', 0o600);
  const offset = statSync(layout.logFile).size;
  let exited: number | null | undefined;
  try {
    const child = spawn(
      binaries.postgres,
      [
        '-D', layout.pgdata,
        '-p', String(SOCKET_PORT),
        '-c', 'listen_addresses=',
        '-c', `unix_socket_directories=${layout.socketDir}`,
        '-c', 'unix_socket_permissions=0700',
      ],
      { detached: true, stdio: ['ignore', logFd, logFd], env: postgresEnv(), ...(user ? { uid: user.uid, gid: user.gid } : {}) },
    );
    child.on('exit', (code) => {
      exited = code;
    });
    child.on('error', () => {
      exited = -1;
    });
    child.unref();
  } finally {
    closeSync(logFd);
  }
  while (Date.now() < deadline) {
    if (exited !== undefined) {
      const log = readFileSync(layout.logFile, 'utf8').slice(offset);
      // Another process's postmaster won the data directory: it is starting; the caller connects to it.
      if (/lock file ".*" already exists/.test(log)) return;
      // Sessions of a killed postmaster still hold its shared memory; they exit within moments.
      if (/pre-existing shared memory block .* is still in use/.test(log)) {
        await sleep(200);
        return;
      }
      throw new Error(`the embedded PostgreSQL did not start (exit ${exited}): ${lastLines(log, 6)}${reachHint(layout, user)}`);
    }
    if (await answers()) return;
    await sleep(25);
  }
  throw new Error(`the embedded PostgreSQL did not accept connections in time; see ${layout.logFile}`);
}

/**
 * Stops a postmaster and waits for it to exit: a fast shutdown (sessions end, committed work is
 * kept); if it has not exited in `timeoutMs`, an immediate one; then SIGKILL (a stopped or wedged
 * process). After either of the last two the next start recovers from the WAL, as after a crash.
 */
export async function stopPostmaster(pid: number, timeoutMs = 30_000): Promise<void> {
  for (const [name, waitMs] of [['SIGINT', timeoutMs], ['SIGQUIT', 3_000], ['SIGKILL', 5_000]] as const) {
    if (!signal(pid, name)) return;
    const deadline = Date.now() + waitMs;
    while (processAlive(pid)) {
      if (Date.now() > deadline) break;
      await sleep(20);
    }
    if (!processAlive(pid)) return;
  }
}

/**
 * Lock files left by a dead postmaster whose PID now belongs to another process: PostgreSQL would
 * refuse to start ("is another postmaster running?"), so they are removed.
 */
export function clearForeignLockFiles(layout: ClusterLayout): void {
  for (const file of [join(layout.pgdata, 'postmaster.pid'), join(layout.socketDir, `.s.PGSQL.${SOCKET_PORT}.lock`)]) {
    if (!existsSync(file)) continue;
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0 && processAlive(pid) && !isPostmasterOf(pid, layout.pgdata)) rmSync(file, { force: true });
  }
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** Keeps the log from growing without bound: past 10 MiB it moves to `postgres.log.1` at the next start. */
function rotateLog(file: string): void {
  try {
    if (statSync(file).size > 10 * 1024 * 1024) renameSync(file, `${file}.1`);
  } catch {
    // no log yet
  }
}

function lastLines(text: string, count: number): string {
  return text.trim().split('\n').slice(-count).join(' | ') || '(no output)';
}
