import { resolve } from 'node:path';

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
  /** Trust X-Forwarded-For from a proxy in front (client addresses for the beacon's rate limit). */
  trustProxy: boolean;
}

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
    trustProxy: parseFlag('SIGHTLINE_TRUST_PROXY', env.SIGHTLINE_TRUST_PROXY, false),
  };
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
