/**
 * The embedded PostgreSQL as the benchmarks see it from outside: where their data directories go,
 * the postmaster of one, the memory of the postmaster and its children, and making sure none is
 * left running when a benchmark ends.
 *
 * Data directories live under `<repo>/.tmp/` (gitignored), not under the system temp directory:
 * run as root, the postmaster runs as the `postgres` account, which must be able to pass through
 * every parent directory, and `mkdtemp` makes 0700 directories it cannot enter.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { clusterLayout } from '../../src/db/embedded/layout.ts';
import { isPostmasterOf, processAlive, readPostmasterPid, stopPostmaster } from '../../src/db/embedded/postmaster.ts';
import { ROOT } from './common.ts';

/** A fresh, empty data directory `<repo>/.tmp/bench-<tag>-<pid>` (emptied first if a previous run left it). */
export function benchDataDir(tag: string): string {
  const dir = join(ROOT, '.tmp', `bench-${tag}-${process.pid}`);
  removeDataDir(dir);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Deletes a data directory and, when it lives elsewhere (a long path), its socket directory. */
export function removeDataDir(dataDir: string): void {
  const { socketDir } = clusterLayout(dataDir);
  if (!socketDir.startsWith(dataDir)) rmSync(socketDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}

/** The pid of the live postmaster of a data directory, if one runs. */
export function postmasterPid(dataDir: string): number | undefined {
  const { pgdata } = clusterLayout(dataDir);
  const found = readPostmasterPid(pgdata);
  return found && processAlive(found.pid) && isPostmasterOf(found.pid, pgdata) ? found.pid : undefined;
}

/**
 * After a benchmark has closed everything: a postmaster still running for `dataDir` is a leak. It is
 * reported and stopped (fast shutdown), so no benchmark leaves one behind. Returns whether one ran.
 */
export async function stopLeftoverPostmaster(dataDir: string, label = dataDir): Promise<boolean> {
  const pid = postmasterPid(dataDir);
  if (pid === undefined) return false;
  console.warn(`warning: ${label}: the embedded postmaster (pid ${pid}) still ran after every user let go; stopping it`);
  await stopPostmaster(pid, 15_000);
  return true;
}

/** The direct children of a process (from the ppid field of /proc/<pid>/stat). */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

export interface FamilyMemory {
  /** How many processes were counted. */
  processes: number;
  /** Sum of VmRSS: counts shared memory (shared_buffers) once per process that touched it. */
  rssMiB: number;
  /** Sum of Pss (/proc/<pid>/smaps_rollup): shared pages split between the processes sharing them. */
  pssMiB: number | undefined;
}

function kbField(file: string, field: string): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
    return match?.[1] ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Memory of a process and its direct children (a postmaster and its backends and workers). */
export function familyMemory(pid: number): FamilyMemory {
  return memoryOfPids([pid, ...childrenOf(pid)]);
}

/** Processes whose command line (NULs as spaces) matches `pattern`, e.g. a server's backends of one database. */
export function pidsMatching(pattern: RegExp): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (pattern.test(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim())) out.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Summed VmRSS and Pss of some processes (those that exited meanwhile are left out). */
export function memoryOfPids(pids: readonly number[]): FamilyMemory {
  let rss = 0;
  let pss = 0;
  let pssKnown = true;
  let processes = 0;
  for (const p of pids) {
    const r = kbField(`/proc/${p}/status`, 'VmRSS');
    if (r === undefined) continue;
    processes++;
    rss += r;
    const s = kbField(`/proc/${p}/smaps_rollup`, 'Pss');
    if (s === undefined) pssKnown = false;
    else pss += s;
  }
  const mib = (kb: number) => Math.round((kb / 1024) * 10) / 10;
  return { processes, rssMiB: mib(rss), pssMiB: pssKnown ? mib(pss) : undefined };
}
