/**
 * The load generator: a separate process from the server it measures. N concurrent keep-alive
 * HTTP/1.1 GET requests against one loopback URL, first a short warm-up, then a measurement bounded
 * by both a request count and a time limit, whichever comes first. Prints one JSON object
 * (LoadResult) on stdout.
 *
 *   node bench/lib/load.ts '{"url":"http://127.0.0.1:3000/bare","concurrency":16,...}'
 */
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
}

export const REQUEST_TIMEOUT_MS = 10_000;

class RequestTimeout extends Error {}

interface Phase {
  latencies: Float64Array;
  count: number;
  non200: number;
  errors: number;
  timeouts: number;
  statuses: Map<number, number>;
  firstError: string | undefined;
  elapsedMs: number;
}

async function runPhase(spec: LoadSpec, agent: http.Agent, maxRequests: number, maxMs: number): Promise<Phase> {
  const url = new URL(spec.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`the load generator only targets 127.0.0.1, not ${url.hostname}`);
  const phase: Phase = {
    latencies: new Float64Array(maxRequests),
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
    path: url.pathname + url.search,
    method: 'GET',
    agent,
    headers: spec.headers ?? {},
  };
  let issued = 0;
  const start = performance.now();
  const deadline = start + maxMs;

  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      let settled = false;
      const done = (status: number | undefined, error?: Error) => {
        if (settled) return;
        settled = true;
        const ms = performance.now() - t0;
        const i = phase.count++;
        phase.latencies[i] = ms;
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
      const req = http.request(options, (res) => {
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
      issued++;
      await one();
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

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency, maxFreeSockets: spec.concurrency });
  try {
    let warmupRequests = 0;
    if (spec.warmupMs > 0 && spec.warmupRequests > 0) {
      warmupRequests = (await runPhase(spec, agent, spec.warmupRequests, spec.warmupMs)).count;
    }
    const phase = await runPhase(spec, agent, spec.requests, spec.durationMs);
    const sorted = phase.latencies.slice(0, phase.count).sort();
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
    };
    if (phase.firstError !== undefined) result.firstError = phase.firstError;
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
