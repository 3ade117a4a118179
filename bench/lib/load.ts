/**
 * The load generator: a separate process from the server it measures. N concurrent keep-alive
 * HTTP/1.1 GET requests against one loopback URL, first a short warm-up, then a measurement bounded
 * by both a request count and a time limit, whichever comes first. Prints one JSON object
 * (LoadResult) on stdout.
 *
 *   node bench/lib/load.ts '{"url":"http://127.0.0.1:3000/bare","concurrency":16,...}'
 *
 * Optionally a list of paths (on the origin of `url`) instead of the one URL: `paths`, or
 * `pathsFile` (one path a line, for lists too long for a command line). Requests take them in
 * order, warm-up and measurement sharing one position. With `cycle` (the default) the list
 * rotates; without it every path is requested at most once and the run stops when they are all
 * taken (`exhausted`), so a response cache keyed by the URL never sees a path twice.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

export interface LoadSpec {
  url: string;
  headers?: Record<string, string>;
  concurrency: number;
  /** Stop issuing requests after this many (measurement phase). */
  requests: number;
  /** Stop issuing requests after this long (measurement phase). */
  durationMs: number;
  /** Warm-up before measuring, bounded by time and count too; 0 skips it. */
  warmupMs: number;
  warmupRequests: number;
  /** Paths (with query) to request in turn, on the origin of `url`, instead of `url` itself. */
  paths?: string[];
  /** The same, one path a line, read from this file (after `paths`, if both are given). */
  pathsFile?: string;
  /** Rotate through the paths (default); false: each at most once, stopping when they run out. */
  cycle?: boolean;
  /** Return every measured latency (ms), so runs can be pooled, and with paths which each was. */
  keepLatencies?: boolean;
}

export interface LoadResult {
  url: string;
  concurrency: number;
  /** Completed requests in the measurement (any status). */
  requests: number;
  /** Responses that were not 200. */
  non200: number;
  /** Transport errors (reset, timeout...). */
  errors: number;
  /** Of those, requests given no answer within REQUEST_TIMEOUT_MS (10 s). */
  timeouts: number;
  statuses: Record<string, number>;
  elapsedMs: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  warmupRequests: number;
  firstError?: string;
  /** CPU time of this generator process over its whole life (start-up, warm-up, measurement), ms. */
  cpuMs: number;
  /** With paths: how many were taken (warm-up and measurement; each request takes one). */
  pathsTaken?: number;
  pathsTotal?: number;
  /** Without `cycle`: the paths ran out before the measurement's own limits. */
  exhausted?: boolean;
  /** With `keepLatencies`: the measured latencies, ms, in completion order. */
  latencies?: number[];
  /** With `keepLatencies` and paths: for each of `latencies`, the index of its path in the list. */
  latencyPaths?: number[];
}

export const REQUEST_TIMEOUT_MS = 10_000;

class RequestTimeout extends Error {}

interface Phase {
  latencies: Float64Array;
  /** The index (in the list of paths) of each request's path. */
  pathIndex: Int32Array;
  count: number;
  non200: number;
  errors: number;
  timeouts: number;
  statuses: Map<number, number>;
  firstError: string | undefined;
  elapsedMs: number;
}

/** The path of the next request and its index in the list; undefined when a list without `cycle` has run out. */
type NextPath = () => { path: string; index: number } | undefined;

async function runPhase(spec: LoadSpec, agent: http.Agent, maxRequests: number, maxMs: number, nextPath: NextPath): Promise<Phase> {
  const url = new URL(spec.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`the load generator only targets 127.0.0.1, not ${url.hostname}`);
  const phase: Phase = {
    latencies: new Float64Array(maxRequests),
    pathIndex: new Int32Array(spec.keepLatencies ? maxRequests : 0),
    count: 0,
    non200: 0,
    errors: 0,
    timeouts: 0,
    statuses: new Map(),
    firstError: undefined,
    elapsedMs: 0,
  };
  const options: http.RequestOptions = {
    host: '127.0.0.1',
    port: Number(url.port),
    method: 'GET',
    agent,
    headers: spec.headers ?? {},
  };
  let issued = 0;
  const start = performance.now();
  const deadline = start + maxMs;

  const one = (path: string, pathIndex: number): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      let settled = false;
      const done = (status: number | undefined, error?: Error) => {
        if (settled) return;
        settled = true;
        const ms = performance.now() - t0;
        const i = phase.count++;
        phase.latencies[i] = ms;
        if (spec.keepLatencies) phase.pathIndex[i] = pathIndex;
        if (status === undefined) {
          phase.errors++;
          if (error instanceof RequestTimeout) phase.timeouts++;
          phase.firstError ??= error?.message ?? 'unknown error';
        } else {
          phase.statuses.set(status, (phase.statuses.get(status) ?? 0) + 1);
          if (status !== 200) {
            phase.non200++;
            phase.firstError ??= `HTTP ${status}`;
          }
        }
        resolve();
      };
      const req = http.request({ ...options, path }, (res) => {
        res.on('data', () => {});
        res.on('end', () => done(res.statusCode));
        res.on('error', (error) => done(undefined, error));
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new RequestTimeout(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', (error) => done(undefined, error));
      req.end();
    });

  const worker = async () => {
    while (issued < maxRequests && performance.now() < deadline) {
      const next = nextPath();
      if (next === undefined) return;
      issued++;
      await one(next.path, next.index);
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  phase.elapsedMs = performance.now() - start;
  return phase;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? NaN;
}

/** Where requests go: the one URL's path, or the list of paths (rotating or taken once). */
function pathSource(spec: LoadSpec): { next: NextPath; taken: () => number; total: number | undefined; ranOut: () => boolean } {
  const list = [...(spec.paths ?? [])];
  if (spec.pathsFile) list.push(...readFileSync(spec.pathsFile, 'utf8').split('\n').filter((line) => line.trim() !== ''));
  if (spec.paths === undefined && spec.pathsFile === undefined) {
    const url = new URL(spec.url);
    const path = url.pathname + url.search;
    return { next: () => ({ path, index: 0 }), taken: () => 0, total: undefined, ranOut: () => false };
  }
  if (list.length === 0) throw new Error('an empty list of paths');
  for (const path of list) if (!path.startsWith('/')) throw new Error(`a path must start with "/": ${path}`);
  const cycle = spec.cycle ?? true;
  let i = 0;
  let ranOut = false;
  return {
    next: () => {
      if (i >= list.length && !cycle) {
        ranOut = true;
        return undefined;
      }
      const index = i++ % list.length;
      return { path: list[index]!, index };
    },
    taken: () => i,
    total: list.length,
    ranOut: () => ranOut,
  };
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency, maxFreeSockets: spec.concurrency });
  const paths = pathSource(spec);
  try {
    let warmupRequests = 0;
    if (spec.warmupMs > 0 && spec.warmupRequests > 0) {
      warmupRequests = (await runPhase(spec, agent, spec.warmupRequests, spec.warmupMs, paths.next)).count;
    }
    const phase = await runPhase(spec, agent, spec.requests, spec.durationMs, paths.next);
    const cpu = process.cpuUsage();
    const measured = phase.latencies.slice(0, phase.count);
    const sorted = measured.slice().sort();
    const round = (n: number) => Math.round(n * 100) / 100;
    const result: LoadResult = {
      url: spec.url,
      concurrency: spec.concurrency,
      requests: phase.count,
      non200: phase.non200,
      errors: phase.errors,
      timeouts: phase.timeouts,
      statuses: Object.fromEntries([...phase.statuses].map(([status, n]) => [String(status), n])),
      elapsedMs: round(phase.elapsedMs),
      rps: Math.round(phase.count / (phase.elapsedMs / 1000)),
      p50Ms: round(percentile(sorted, 50)),
      p90Ms: round(percentile(sorted, 90)),
      p99Ms: round(percentile(sorted, 99)),
      maxMs: round(sorted[sorted.length - 1] ?? NaN),
      warmupRequests,
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    };
    if (phase.firstError !== undefined) result.firstError = phase.firstError;
    if (paths.total !== undefined) {
      result.pathsTaken = paths.taken();
      result.pathsTotal = paths.total;
      result.exhausted = paths.ranOut();
    }
    if (spec.keepLatencies) result.latencies = Array.from(measured, round);
    if (spec.keepLatencies && paths.total !== undefined) result.latencyPaths = Array.from(phase.pathIndex.slice(0, phase.count));
    return result;
  } finally {
    agent.destroy();
  }
}

if (import.meta.main) {
  const arg = process.argv[2];
  if (!arg) {
    console.error('usage: node bench/lib/load.ts <LoadSpec as JSON>');
    process.exit(2);
  }
  const spec = JSON.parse(arg) as LoadSpec;
  const result = await runLoad(spec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
