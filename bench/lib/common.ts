/** Shared by the benchmark scripts: settings, the load generator process, processes, formatting. */
import { createInterface } from 'node:readline';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadResult, LoadSpec } from './load.ts';

export const BENCH_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
export const ROOT = dirname(BENCH_DIR);
const LOAD_SCRIPT = join(BENCH_DIR, 'lib', 'load.ts');

export interface LoadSettings {
  concurrency: number;
  requests: number;
  durationMs: number;
  warmupMs: number;
  warmupRequests: number;
}

/**
 * Settings from `--name=value` arguments, else BENCH_* variables, else defaults:
 * --concurrency / BENCH_CONCURRENCY (16), --requests / BENCH_REQUESTS (20000),
 * --duration-ms / BENCH_DURATION_MS (5000), --warmup-ms / BENCH_WARMUP_MS (1000),
 * --warmup-requests / BENCH_WARMUP_REQUESTS (2000).
 */
export function setting(name: string, fallback: number, argv: readonly string[] = process.argv.slice(2)): number {
  const flag = `--${name}=`;
  const fromArg = argv.find((a) => a.startsWith(flag))?.slice(flag.length);
  const envName = `BENCH_${name.toUpperCase().replaceAll('-', '_')}`;
  const raw = fromArg ?? process.env[envName];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${flag.slice(0, -1)} / ${envName} must be a non-negative number, got "${raw}"`);
  return value;
}

/** A yes/no switch: `--name` on the command line or BENCH_NAME=1|true|yes in the environment. */
export function flagArg(name: string, argv: readonly string[] = process.argv.slice(2)): boolean {
  return argv.includes(`--${name}`) || ['1', 'true', 'yes'].includes((process.env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`] ?? '').toLowerCase());
}

export function stringArg(name: string, argv: readonly string[] = process.argv.slice(2)): string | undefined {
  const flag = `--${name}=`;
  return argv.find((a) => a.startsWith(flag))?.slice(flag.length);
}

export function loadSettings(): LoadSettings {
  return {
    concurrency: Math.max(1, Math.round(setting('concurrency', 16))),
    requests: Math.max(1, Math.round(setting('requests', 20_000))),
    durationMs: setting('duration-ms', 5_000),
    warmupMs: setting('warmup-ms', 1_000),
    warmupRequests: Math.round(setting('warmup-requests', 2_000)),
  };
}

/** Runs the load generator in its own process and returns what it measured. */
export function runLoadProcess(spec: LoadSpec): Promise<LoadResult> {
  // The generator bounds itself; the limit only catches a wedged one.
  return runJsonChild<LoadResult>(LOAD_SCRIPT, spec, spec.warmupMs + spec.durationMs + 30_000, 'load generator');
}

/**
 * Runs a bench script in its own Node process with a JSON argument and resolves with the one JSON
 * object it prints; killed after `limitMs`.
 */
/**
 * A local server in a child process (its CPU is not the service's): started with the spec as its
 * argument, it prints one JSON line ({port, pid}) once it listens. Fails after 20 s or if it exits first.
 */
export async function startChildServer(script: string, spec: unknown, label: string): Promise<{ child: ChildProcess; port: number; pid: number }> {
  const child = spawn(process.execPath, [script, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => reject(new Error(`${label} did not start within 20 s`)), 20_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code} before listening`));
    });
  });
  const { port, pid } = JSON.parse(first) as { port: number; pid: number };
  return { child, port, pid };
}

export function runJsonChild<T>(script: string, spec: unknown, limitMs: number, label: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, JSON.stringify(spec)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`${label} exited with ${code ?? signal}: ${err.trim()}`));
        return;
      }
      try {
        resolve(JSON.parse(out.trim()) as T);
      } catch {
        reject(new Error(`${label} printed no JSON: ${out.trim().slice(0, 500)} ${err.trim()}`));
      }
    });
  });
}

/** A TCP port free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** One GET on loopback; the status, or undefined when nothing answered. */
export function probe(url: string, timeoutMs = 1_000): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', () => resolve(undefined));
    });
    req.setTimeout(timeoutMs, () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

/** VmRSS and VmHWM (peak) of a process, in MiB, from /proc/<pid>/status. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match?.[1]) throw new Error(`no ${field} in /proc/${pid}/status`);
    return Number(match[1]);
  };
  const mib = (n: number) => Math.round((n / 1024) * 10) / 10;
  return { rssMiB: mib(kb('VmRSS')), peakMiB: mib(kb('VmHWM')) };
}

/** Resolves when the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** SIGTERM, then wait for the exit; SIGKILL after `graceMs`. Returns how long the stop took. */
export async function stop(child: ChildProcess, graceMs = 10_000): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null; killed: boolean }> {
  const t0 = performance.now();
  const exit = exited(child);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), graceMs);
  });
  const first = await Promise.race([exit, timeout]);
  clearTimeout(timer);
  if (first === 'timeout') {
    child.kill('SIGKILL');
    const { code, signal } = await exit;
    return { ms: round1(performance.now() - t0), code, signal, killed: true };
  }
  return { ms: round1(performance.now() - t0), code: first.code, signal: first.signal, killed: false };
}

export function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

/** A plain-text table, columns padded; numbers right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = [header, ...rows].map((row) => row.map((c) => (typeof c === 'number' ? formatNumber(c) : c)));
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  // Right-align a column of numbers (a '-' stands for a missing one).
  const numeric = header.map((_, i) => rows.some((row) => typeof row[i] === 'number') && rows.every((row) => typeof row[i] === 'number' || row[i] === '-'));
  const line = (row: readonly string[]) =>
    row.map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  const [head, ...body] = cells;
  return [line(head ?? []), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return '-';
  if (Number.isInteger(n)) return String(n);
  return n.toFixed(n >= 100 ? 0 : n >= 10 ? 1 : 2);
}

/** Writes `value` as JSON to the file named by `--json-out=FILE`, when given (run-all uses it). */
export function writeJsonOut(value: unknown): void {
  const file = stringArg('json-out');
  if (file) writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

export function describeLoad(s: LoadSettings): string {
  return `concurrency ${s.concurrency}, up to ${s.requests} requests or ${s.durationMs / 1000} s (warm-up ${s.warmupMs / 1000} s / ${s.warmupRequests} requests)`;
}
