import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseResolveMap, ResolveMapError, type ResolveMap } from './outbound/resolve-map.ts';
import { loadSamplingConfig, ProvidersConfigError, type SamplingConfig } from './sampling/providers/providers-config.ts';

/** Everything the service reads from its environment, validated once at start-up. */
export interface Config {
  port: number;
  host: string;
  /** `postgres://...` when a server is used; undefined means the embedded database. */
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  demo: boolean;
  publicUrl: string | undefined;
  logLevel: string;
  /** `pretty` (lines for a person) on a terminal, `json` otherwise; LOG_FORMAT overrides. */
  logFormat: 'pretty' | 'json';
  /** Requests slower than this (ms) are logged at info, besides failed ones; the rest at debug. */
  slowRequestMs: number;
  /**
   * Proxies in front whose X-Forwarded-For is believed (client addresses, for the beacon's rate
   * limit): false, a number of hops, or the trusted proxies' addresses and CIDR ranges.
   */
  trustProxy: TrustProxy;
  /** SIGHTLINE_RESOLVE: hosts mapped to addresses for outbound requests (they may be private). */
  resolve: ResolveMap;
  /** SIGHTLINE_IMPORT_BATCH: runs per transaction of `runs import` (memory against speed); undefined: the import's own default. */
  importBatch: number | undefined;
  /** The engines' providers and the sampler's limits (operations.md section 6). */
  sampling: SamplingConfig;
  /** Citation verification (operations.md section 7). */
  verification: {
    /** SIGHTLINE_VERIFY: whether `serve` checks cited URLs in the background. */
    enabled: boolean;
    /** SIGHTLINE_VERIFY_RECHECK_DAYS: a concluded URL is checked again after this many days. */
    recheckDays: number;
    /** SIGHTLINE_VERIFY_CONCURRENCY: URLs checked at once per process. */
    concurrency: number;
  };
}

export type TrustProxy = false | number | string[];

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = nonEmpty(env.DATABASE_URL);
  return {
    port: parsePort(env.PORT ?? '3000'),
    host: nonEmpty(env.HOST) ?? '127.0.0.1',
    databaseUrl,
    dataDir: resolve(nonEmpty(env.SIGHTLINE_DATA_DIR) ?? './data'),
    redisUrl: nonEmpty(env.REDIS_URL),
    demo: parseFlag('SIGHTLINE_DEMO', env.SIGHTLINE_DEMO, databaseUrl === undefined),
    publicUrl: parsePublicUrl(nonEmpty(env.SIGHTLINE_PUBLIC_URL)),
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
    logFormat: parseLogFormat(nonEmpty(env.LOG_FORMAT)),
    slowRequestMs: parseMs('SIGHTLINE_SLOW_REQUEST_MS', nonEmpty(env.SIGHTLINE_SLOW_REQUEST_MS), 500),
    trustProxy: parseTrustProxy(nonEmpty(env.SIGHTLINE_TRUST_PROXY)),
    resolve: parseResolve(env.SIGHTLINE_RESOLVE),
    importBatch: parseCount('SIGHTLINE_IMPORT_BATCH', nonEmpty(env.SIGHTLINE_IMPORT_BATCH), 100_000),
    sampling: parseSampling(env),
    verification: {
      enabled: parseFlag('SIGHTLINE_VERIFY', env.SIGHTLINE_VERIFY, true),
      recheckDays: parseCount('SIGHTLINE_VERIFY_RECHECK_DAYS', nonEmpty(env.SIGHTLINE_VERIFY_RECHECK_DAYS), 3650) ?? 7,
      concurrency: parseCount('SIGHTLINE_VERIFY_CONCURRENCY', nonEmpty(env.SIGHTLINE_VERIFY_CONCURRENCY), 1000) ?? 8,
    },
  };
}

/**
 * SIGHTLINE_TRUST_PROXY: `0` (default) trusts no proxy; `1` or `true` one proxy hop, N that many:
 * the client is the address the outermost trusted hop saw, never what the client wrote at the
 * left of X-Forwarded-For; or a comma-separated list of the proxies' addresses and CIDR ranges.
 */
function parseTrustProxy(value: string | undefined): TrustProxy {
  if (value === undefined || value === '0' || value === 'false') return false;
  if (value === 'true') return 1;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  const entries = value.split(',').map((e) => e.trim()).filter(Boolean);
  const valid = (entry: string) => {
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || rest.length > 0) return false;
    return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  };
  const bad = entries.find((e) => !valid(e));
  if (entries.length === 0 || bad !== undefined) {
    throw new ConfigError(`SIGHTLINE_TRUST_PROXY must be 0, 1, a number of proxy hops, or proxy addresses/CIDR ranges separated by commas; "${bad ?? value}" is none of these`);
  }
  return entries;
}

function parseCount(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new ConfigError(`${name} must be a whole number from 1 to ${max}, got "${value}"`);
  return n;
}

function parseMs(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) throw new ConfigError(`${name} must be a whole number of milliseconds, got "${value}"`);
  return ms;
}

function parseLogFormat(value: string | undefined): 'pretty' | 'json' {
  if (value === undefined) return process.stdout.isTTY ? 'pretty' : 'json';
  if (value === 'pretty' || value === 'json') return value;
  throw new ConfigError(`LOG_FORMAT must be pretty or json, got "${value}"`);
}

function parseSampling(env: NodeJS.ProcessEnv): SamplingConfig {
  try {
    return loadSamplingConfig(env);
  } catch (error) {
    if (error instanceof ProvidersConfigError) throw new ConfigError(error.message);
    throw error;
  }
}

function parseResolve(value: string | undefined): ResolveMap {
  try {
    return parseResolveMap(value);
  } catch (error) {
    if (error instanceof ResolveMapError) throw new ConfigError(error.message);
    throw error;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got "${value}"`);
  }
  return port;
}

function parseFlag(name: string, value: string | undefined, fallback: boolean): boolean {
  const v = nonEmpty(value);
  if (v === undefined) return fallback;
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  throw new ConfigError(`${name} must be 0 or 1, got "${v}"`);
}

function parsePublicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`SIGHTLINE_PUBLIC_URL must be an absolute URL, got "${value}"`);
  }
  return url.href.replace(/\/+$/, '');
}
