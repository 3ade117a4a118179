/**
 * A load generator for request bodies: like lib/load.ts (a separate process, N requests in flight,
 * a warm-up, then a measurement bounded by a request count and a time limit), but it sends POST
 * requests with a body and headers, and can
 * - take each request's body from its own file (`bodyFiles`, used once each, in order: the warm-up
 *   takes the first ones), so that uploads are never repeats;
 * - send each request on a new connection from its own loopback source address (`spreadSources`):
 *   Linux routes all of 127.0.0.0/8 to `lo`, so a client can bind 127.1.0.1, 127.1.0.2, ... and the
 *   server sees a different client address for each request (per-address rate limits then do not
 *   apply);
 * - return the first response bodies (`keepResponses`).
 * Prints one JSON object (PostLoadResult) on stdout.
 *
 *   node bench/lib/post-load.ts '{"url":"http://127.0.0.1:3000/api/beacon","body":"{...}",...}'
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { runJsonChild } from './common.ts';

export interface PostLoadSpec {
  url: string;
  method?: 'POST' | 'PUT' | 'GET';
  headers?: Record<string, string>;
  /** The same body for every request... */
  body?: string;
  /** ...or one file per request (each used once); the run ends when they are used up. */
  bodyFiles?: string[];
  concurrency: number;
  requests: number;
  durationMs: number;
  warmupMs: number;
  warmupRequests: number;
  /** Each request on a new connection from a new 127.x.y.z source address (no keep-alive). */
  spreadSources?: boolean;
  /** Keep-alive connections (default true; ignored with spreadSources). */
  keepAlive?: boolean;
  /** The status counted as success (default 200); others count as `unexpected`. */
  expectStatus?: number;
  /** Return the first N response bodies of the measurement (default 0). */
  keepResponses?: number;
  timeoutMs?: number;
}

export interface PostLoadResult {
  url: string;
  concurrency: number;
  requests: number;
  unexpected: number;
  errors: number;
  statuses: Record<string, number>;
  elapsedMs: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  /** Bytes of request bodies sent in the measurement. */
  bodyBytes: number;
  warmupRequests: number;
  latenciesMs?: number[];
  responses?: string[];
  firstError?: string;
}

interface Phase {
  latencies: number[];
  unexpected: number;
  errors: number;
  statuses: Map<number, number>;
  firstError: string | undefined;
  elapsedMs: number;
  bodyBytes: number;
  responses: string[];
}

/** The n-th spread source address: 127.1.0.1, 127.1.0.2, ... (skipping .0 and .255). */
export function sourceAddress(n: number): string {
  const i = n % (254 * 254 * 254);
  return `127.${1 + Math.floor(i / (254 * 254))}.${1 + (Math.floor(i / 254) % 254)}.${1 + (i % 254)}`;
}

export async function runPostLoad(spec: PostLoadSpec): Promise<PostLoadResult> {
  const url = new URL(spec.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`the load generator only targets 127.0.0.1, not ${url.hostname}`);
  const files = (spec.bodyFiles ?? []).map((f) => readFileSync(f));
  const fixed = spec.body === undefined ? undefined : Buffer.from(spec.body);
  if (!fixed && files.length === 0 && (spec.method ?? 'POST') !== 'GET') throw new Error('give body or bodyFiles');
  const keepAlive = !spec.spreadSources && spec.keepAlive !== false;
  const agent = new http.Agent({ keepAlive, maxSockets: spec.concurrency, maxFreeSockets: spec.concurrency });
  const timeoutMs = spec.timeoutMs ?? 10_000;
  let fileCursor = 0;
  let sourceCursor = 0;
  const nextBody = (): Buffer | undefined => {
    if (files.length > 0) return files[fileCursor++];
    return fixed ?? Buffer.alloc(0);
  };

  const runPhase = async (maxRequests: number, maxMs: number, keep: number): Promise<Phase> => {
    const phase: Phase = { latencies: [], unexpected: 0, errors: 0, statuses: new Map(), firstError: undefined, elapsedMs: 0, bodyBytes: 0, responses: [] };
    let issued = 0;
    const start = performance.now();
    const deadline = start + maxMs;
    const one = (body: Buffer): Promise<void> =>
      new Promise((resolve) => {
        const options: http.RequestOptions = {
          host: '127.0.0.1',
          port: Number(url.port),
          path: url.pathname + url.search,
          method: spec.method ?? 'POST',
          headers: { ...(spec.headers ?? {}), 'content-length': String(body.length) },
        };
        if (spec.spreadSources) {
          options.agent = false;
          options.localAddress = sourceAddress(sourceCursor++);
        } else {
          options.agent = agent;
        }
        const t0 = performance.now();
        let settled = false;
        const done = (status: number | undefined, text: string, error?: Error) => {
          if (settled) return;
          settled = true;
          phase.latencies.push(performance.now() - t0);
          phase.bodyBytes += body.length;
          if (status === undefined) {
            phase.errors++;
            phase.firstError ??= error?.message ?? 'unknown error';
          } else {
            phase.statuses.set(status, (phase.statuses.get(status) ?? 0) + 1);
            if (status !== (spec.expectStatus ?? 200)) {
              phase.unexpected++;
              phase.firstError ??= `HTTP ${status}: ${text.slice(0, 300)}`;
            }
            if (phase.responses.length < keep) phase.responses.push(text);
          }
          resolve();
        };
        const req = http.request(options, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(res.statusCode, Buffer.concat(chunks).toString('utf8')));
          res.on('error', (error) => done(undefined, '', error));
        });
        req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        req.on('error', (error) => done(undefined, '', error));
        req.end(body);
      });
    const worker = async () => {
      while (issued < maxRequests && performance.now() < deadline) {
        const body = nextBody();
        if (body === undefined) return; // body files used up
        issued++;
        await one(body);
      }
    };
    await Promise.all(Array.from({ length: spec.concurrency }, worker));
    phase.elapsedMs = performance.now() - start;
    return phase;
  };

  try {
    let warmupRequests = 0;
    if (spec.warmupMs > 0 && spec.warmupRequests > 0) warmupRequests = (await runPhase(spec.warmupRequests, spec.warmupMs, 0)).latencies.length;
    const phase = await runPhase(spec.requests, spec.durationMs, spec.keepResponses ?? 0);
    const sorted = Float64Array.from(phase.latencies).sort();
    const round = (n: number) => Math.round(n * 100) / 100;
    const pct = (p: number) => (sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN));
    const result: PostLoadResult = {
      url: spec.url,
      concurrency: spec.concurrency,
      requests: phase.latencies.length,
      unexpected: phase.unexpected,
      errors: phase.errors,
      statuses: Object.fromEntries([...phase.statuses].map(([status, n]) => [String(status), n])),
      elapsedMs: round(phase.elapsedMs),
      rps: Math.round(phase.latencies.length / (phase.elapsedMs / 1000)),
      p50Ms: round(pct(50)),
      p90Ms: round(pct(90)),
      p99Ms: round(pct(99)),
      maxMs: round(sorted[sorted.length - 1] ?? NaN),
      meanMs: round(phase.latencies.reduce((a, b) => a + b, 0) / Math.max(1, phase.latencies.length)),
      bodyBytes: phase.bodyBytes,
      warmupRequests,
    };
    if (files.length > 0) result.latenciesMs = phase.latencies.map(round);
    if (phase.responses.length > 0) result.responses = phase.responses;
    if (phase.firstError !== undefined) result.firstError = phase.firstError;
    return result;
  } finally {
    agent.destroy();
  }
}

const SCRIPT = fileURLToPath(import.meta.url);

/** Runs the generator in its own process (the running Node) and returns what it measured. */
export function runPostLoadProcess(spec: PostLoadSpec): Promise<PostLoadResult> {
  // The generator bounds itself; the limit only catches a wedged one.
  const limit = spec.warmupMs + spec.durationMs + (spec.timeoutMs ?? 10_000) + 30_000;
  return runJsonChild<PostLoadResult>(SCRIPT, spec, limit, 'post-load');
}

if (import.meta.main) {
  const arg = process.argv[2];
  if (!arg) {
    console.error('usage: node bench/lib/post-load.ts <PostLoadSpec as JSON>');
    process.exit(2);
  }
  const result = await runPostLoad(JSON.parse(arg) as PostLoadSpec);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
