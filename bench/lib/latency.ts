/** Sequential latency of one route through Fastify's `inject` (no sockets): warm-up, then measure. */
import type { FastifyInstance } from 'fastify';

export interface LatencyStats {
  /** Measured requests (warm-up excluded). */
  requests: number;
  /** Responses that were not 200, over warm-up and measurement. */
  failed: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  /** The first response of the warm-up, parsed: the caller checks its shape. */
  firstBody: unknown;
  firstError?: string;
}

export interface LatencyOptions {
  headers?: Record<string, string>;
  warmupRequests: number;
  requests: number;
  /** The measurement stops after this long even if `requests` were not all made (slow cases). */
  maxMs: number;
}

/** The nearest-rank percentile of sorted values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? NaN;
}

export async function measureInject(app: FastifyInstance, url: string, options: LatencyOptions): Promise<LatencyStats> {
  let failed = 0;
  let firstError: string | undefined;
  let firstBody: unknown;
  const one = async (): Promise<number> => {
    const t0 = performance.now();
    const res = await app.inject({ method: 'GET', url, headers: options.headers ?? {} });
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) {
      failed++;
      firstError ??= `HTTP ${res.statusCode}: ${res.body.slice(0, 300)}`;
    } else if (firstBody === undefined) {
      firstBody = res.json();
    }
    return ms;
  };
  // At least one request before measuring, so a broken case shows up even with no warm-up.
  for (let i = 0; i < Math.max(1, options.warmupRequests); i++) await one();
  const latencies: number[] = [];
  const deadline = performance.now() + options.maxMs;
  while (latencies.length < options.requests && (latencies.length === 0 || performance.now() < deadline)) {
    latencies.push(await one());
  }
  const sorted = Float64Array.from(latencies).sort();
  const round = (n: number) => Math.round(n * 100) / 100;
  const stats: LatencyStats = {
    requests: sorted.length,
    failed,
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    meanMs: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length)),
    maxMs: round(sorted[sorted.length - 1] ?? NaN),
    firstBody,
  };
  if (firstError !== undefined) stats.firstError = firstError;
  return stats;
}
