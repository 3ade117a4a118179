/**
 * How busy the machine was with other work during a phase of a benchmark (Linux /proc only).
 *
 * Machine CPU time (/proc/stat, all cores, busy = not idle and not iowait) is split into: this
 * process; "backends", processes whose command line matches `backend` (the PostgreSQL backends
 * of the benchmark's own database: `postgres: 15/main: postgres <db> ...`, autovacuum workers on
 * it); "shared", those matching `shared` (the server-wide checkpointer, WAL writer, background
 * writer, autovacuum launcher: they work for every database); and "other", the rest of the machine.
 * For the embedded PostgreSQL, whose process titles carry no cluster name, `family` names its
 * postmaster instead: only it and its children count, as backends when they match `backend`, else as
 * shared. Processes are found by scanning /proc (see `start`). No query is sent to the database for this.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface Busy {
  seconds: number;
  /** Average cores in use over the phase. */
  machineCores: number;
  selfCores: number;
  backendCores: number;
  sharedCores: number;
  otherCores: number;
}

function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const n = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return total - (n[3] ?? 0) - (n[4] ?? 0);
}

function processTicks(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]); // utime + stime (fields 14 and 15)
  } catch {
    return undefined;
  }
}

function parentOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function cmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

export class ContentionMeter {
  readonly #backend: RegExp | undefined;
  readonly #shared: RegExp | undefined;
  readonly #family: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #startAt = 0;
  #startMachine = 0;
  #startSelf = 0;
  /** pid -> [bucket, ticks at start (0 if born later), last ticks seen]. */
  #tracked = new Map<string, ['backend' | 'shared', number, number]>();
  #pidsSeen = new Set<string>();

  constructor(options: { backend?: RegExp; shared?: RegExp; family?: number } = {}) {
    this.#backend = options.backend;
    this.#shared = options.shared;
    this.#family = options.family;
  }

  static available(): boolean {
    try {
      readFileSync('/proc/stat');
      return true;
    } catch {
      return false;
    }
  }

  #scan(initial: boolean): void {
    if (!this.#backend && !this.#shared && this.#family === undefined) return;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let entry = this.#tracked.get(pid);
      if (!entry) {
        if (this.#pidsSeen.has(pid)) continue; // seen before, not ours
        this.#pidsSeen.add(pid);
        const cmd = cmdline(pid);
        let bucket: 'backend' | 'shared' | undefined;
        if (this.#family !== undefined) {
          if (Number(pid) === this.#family || parentOf(pid) === this.#family) bucket = this.#backend?.test(cmd) ? 'backend' : 'shared';
        } else {
          bucket = this.#backend?.test(cmd) ? 'backend' : this.#shared?.test(cmd) ? 'shared' : undefined;
        }
        if (!bucket) continue;
        const ticks = processTicks(pid);
        if (ticks === undefined) continue;
        entry = [bucket, initial ? ticks : 0, ticks];
        this.#tracked.set(pid, entry);
      } else {
        const ticks = processTicks(pid);
        if (ticks !== undefined) entry[2] = ticks;
      }
    }
  }

  /**
   * `periodic` rescans /proc once a second (under a millisecond each), so processes that exit during
   * the phase still count; without it only the start and the end are read (for latency phases,
   * where a stray millisecond would land in a request's time).
   */
  start(periodic = true): void {
    if (!ContentionMeter.available()) return;
    this.#tracked.clear();
    this.#pidsSeen.clear();
    this.#scan(true);
    const usage = process.cpuUsage();
    this.#startSelf = usage.user + usage.system;
    this.#startMachine = machineBusyTicks();
    this.#startAt = performance.now();
    this.#timer = setInterval(() => {
      if (periodic) this.#scan(false);
    }, periodic ? 1_000 : 60_000);
    this.#timer.unref();
  }

  stop(): Busy | undefined {
    if (!this.#timer) return undefined;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#scan(false);
    const seconds = (performance.now() - this.#startAt) / 1000;
    const machine = (machineBusyTicks() - this.#startMachine) / TICKS_PER_SECOND;
    const usage = process.cpuUsage();
    const self = (usage.user + usage.system - this.#startSelf) / 1e6;
    let backend = 0;
    let shared = 0;
    for (const [bucket, first, last] of this.#tracked.values()) {
      const s = (last - first) / TICKS_PER_SECOND;
      if (bucket === 'backend') backend += s;
      else shared += s;
    }
    const cores = (s: number) => Math.round((s / seconds) * 100) / 100;
    return {
      seconds: Math.round(seconds * 10) / 10,
      machineCores: cores(machine),
      selfCores: cores(self),
      backendCores: cores(backend),
      sharedCores: cores(shared),
      otherCores: cores(Math.max(0, machine - self - backend - shared)),
    };
  }
}

export function describeBusy(b: Busy | undefined): string {
  if (!b) return 'n/a';
  return `${b.seconds} s: machine ${b.machineCores} cores busy = this process ${b.selfCores} + its DB backends ${b.backendCores} + DB server-wide ${b.sharedCores} + other work ${b.otherCores}`;
}

/** Busy CPU ticks of the machine and of some processes (their own plus their reaped children's). */
export interface CpuSnapshot {
  at: number;
  machine: number;
  perPid: Map<number, number>;
  /** With `everyProcess`: every process's ticks and name, to name the other work. */
  all?: Map<number, { ticks: number; name: string }>;
}

function ticksWithChildren(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(rest[11]) + Number(rest[12]) + Number(rest[13]) + Number(rest[14]); // utime stime cutime cstime
  } catch {
    return undefined;
  }
}

export function cpuSnapshot(pids: Iterable<number>, everyProcess = false): CpuSnapshot {
  const perPid = new Map<number, number>();
  for (const pid of pids) {
    const ticks = ticksWithChildren(pid);
    if (ticks !== undefined) perPid.set(pid, ticks);
  }
  const snapshot: CpuSnapshot = { at: performance.now(), machine: machineBusyTicks(), perPid };
  if (everyProcess) {
    snapshot.all = new Map();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        snapshot.all.set(Number(entry), { ticks: Number(rest[11]) + Number(rest[12]), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
      } catch {
        // exited meanwhile
      }
    }
  }
  return snapshot;
}

/**
 * The processes outside `ours` that used the most CPU between two `everyProcess` snapshots (their
 * own time only; one that exited meanwhile is not seen), as "name(pid) cores".
 */
export function busiestOthers(a: CpuSnapshot, b: CpuSnapshot, ours: Iterable<number>, top = 3): { name: string; pid: number; cores: number }[] {
  if (!a.all || !b.all) return [];
  const seconds = (b.at - a.at) / 1000;
  const skip = new Set(ours);
  const out = [];
  for (const [pid, end] of b.all) {
    if (skip.has(pid)) continue;
    const start = a.all.get(pid)?.ticks ?? 0;
    const cores = (end.ticks - start) / TICKS_PER_SECOND / seconds;
    if (cores >= 0.01) out.push({ name: end.name, pid, cores: Math.round(cores * 100) / 100 });
  }
  return out.sort((x, y) => y.cores - x.cores).slice(0, top);
}

/**
 * Between two snapshots: cores busy on the whole machine, in the processes snapshotted (a process
 * first seen in `b` counts from zero; its children's time counts once they are reaped), and in
 * everything else ("other work"). Linux /proc only.
 */
export function cpuSplit(a: CpuSnapshot, b: CpuSnapshot): { seconds: number; machineCores: number; oursCores: number; otherCores: number } {
  const seconds = (b.at - a.at) / 1000;
  const machine = (b.machine - a.machine) / TICKS_PER_SECOND;
  let ours = 0;
  for (const [pid, ticks] of b.perPid) ours += (ticks - (a.perPid.get(pid) ?? 0)) / TICKS_PER_SECOND;
  const cores = (s: number) => Math.round((s / seconds) * 100) / 100;
  return { seconds: Math.round(seconds * 10) / 10, machineCores: cores(machine), oursCores: cores(ours), otherCores: cores(Math.max(0, machine - ours)) };
}

/** Cores used between two snapshots by some of the processes snapshotted. */
export function cpuOf(a: CpuSnapshot, b: CpuSnapshot, pids: Iterable<number>): number {
  const seconds = (b.at - a.at) / 1000;
  let ticks = 0;
  for (const pid of new Set(pids)) {
    const end = b.perPid.get(pid);
    if (end !== undefined) ticks += end - (a.perPid.get(pid) ?? 0);
  }
  return Math.round((ticks / TICKS_PER_SECOND / seconds) * 100) / 100;
}
