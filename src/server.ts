import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { prettyLogStream } from './http/log-stream.ts';
import { openDatabase, type Database } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { seedDemoIfEmpty } from './demo/seed-demo.ts';
import { createOutbound } from './outbound/outbound.ts';
import { configuredUserAgent } from './outbound/user-agent.ts';
import { startWorkers } from './workers/start-workers.ts';
import { createChecker } from './verification/checker.ts';
import { dnsHealth } from './verification/dns-health.ts';
import { ENGINE_ADAPTERS } from './sampling/providers/adapters.ts';
import { configuredEngines, providerOrigins } from './sampling/providers/providers-config.ts';

export interface RunningServer {
  app: FastifyInstance;
  database: Database;
  url: string;
  close(): Promise<void>;
}

/** Opens the database, migrates, seeds the demo on an empty one, and listens. */
export async function startServer(config: Config, print: (line: string) => void = console.log): Promise<RunningServer> {
  const database = await openDatabase(config);
  let redis: Redis | undefined;
  try {
    await migrateToLatest(database.db);
    const demo = config.demo ? await seedDemoIfEmpty(database.db) : undefined;
    if (demo) {
      print('Seeded the demo workspace. Its API keys are shown this once:');
      print(`  read:   ${demo.keys.read}`);
      print(`  ingest: ${demo.keys.ingest}   (bound to project ${demo.projectId})`);
      if (demo.signIn) print(`  app sign-in: ${demo.signIn.email} / ${demo.signIn.password}`);
    }
    redis = config.redisUrl ? await openRedis(config.redisUrl) : undefined;
    // Outbound clients: the public address may not be known before listening, so the user agent names the configured one.
    const userAgent = configuredUserAgent(config);
    const outbound = createOutbound({ userAgent, resolve: config.resolve });
    // Provider calls get their own client: the base URLs the operator configured may be private (a gateway, a local fake); webhooks' may not.
    const providerOutbound = createOutbound({ userAgent, resolve: config.resolve, trusted: providerOrigins(config.sampling.providers) });
    const sampling = { outbound: providerOutbound, sampling: config.sampling, providers: config.sampling.providers, adapters: ENGINE_ADAPTERS, now: () => new Date() };
    const verification = { check: createChecker(outbound), dnsWorks: dnsHealth(outbound), now: () => new Date(), recheckDays: config.verification.recheckDays, concurrency: config.verification.concurrency };
    const app = await buildApp({
      db: database.db,
      redis,
      publicUrl: config.publicUrl,
      trustProxy: config.trustProxy,
      slowRequestMs: config.slowRequestMs,
      configuredEngines: configuredEngines(config.sampling.providers),
      resolve: config.resolve,
      userAgent,
      sampler: { ...sampling, db: database.db },
      verifier: { ...verification, db: database.db },
      importBatch: config.importBatch,
      logger: {
        level: config.logLevel,
        redact: ['req.headers.authorization'],
        // A person at a terminal reads lines; everything else (files, collectors) gets JSON.
        ...(config.logFormat === 'pretty' ? { stream: prettyLogStream(process.stdout) } : {}),
      },
    });
    const address = await app.listen({ port: config.port, host: config.host });
    const stopWorkers = startWorkers(
      database.db,
      outbound,
      (error) => app.log.error({ err: error }, 'background work failed'),
      config.sampling.enabled ? sampling : undefined,
      config.verification.enabled ? verification : undefined,
    );
    const url = config.publicUrl ?? address;
    print(`Sightline is listening on ${address} (${database.kind === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL server'}${redis ? ', Redis rate limits' : ''})`);
    return {
      app,
      database,
      url,
      async close() {
        await stopWorkers();
        await outbound.close();
        await providerOutbound.close();
        await app.close();
        redis?.disconnect();
        await database.close();
      },
    };
  } catch (error) {
    redis?.disconnect();
    await database.close();
    throw error;
  }
}

/**
 * A Redis client that fails fast: no offline queue, one retry per command, so a Redis outage makes
 * the rate limiter skip (see http/rate-limit.ts) instead of holding requests.
 */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000 });
  let lastLog = 0;
  redis.on('error', (error: Error) => {
    if (Date.now() - lastLog > 30_000) {
      lastLog = Date.now();
      console.error(`redis: ${error.message} (rate limits are not enforced while Redis is unreachable)`);
    }
  });
  return redis;
}

/**
 * connectRedis, then up to `waitMs` for the connection, so the first requests share the window
 * too. A Redis that is down does not stop the service from starting (see http/rate-limit.ts).
 */
export async function openRedis(url: string, waitMs = 3_000): Promise<Redis> {
  const redis = connectRedis(url);
  if (redis.status !== 'ready') {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, waitMs);
      redis.once('ready', done);
      function done() {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      }
    });
  }
  return redis;
}

/** A signal again within this long is the same one, passed on by the bin's shim. */
const REPEAT_MS = 1_000;

/** Stops on SIGINT, SIGTERM or SIGHUP, closing the database cleanly (the embedded one stops if no other process uses it). */
export function stopOnSignals(server: RunningServer): void {
  let stopping: number | undefined;
  const stop = (signal: string) => {
    if (stopping !== undefined) {
      // The same signal twice at once is one (Ctrl-C reaches the bin's shim, which passes it on,
      // and this process); asked again later, the stop is forced.
      if (Date.now() - stopping < REPEAT_MS) return;
      console.error(`sightline: ${signal} again: stopping now, without waiting for work in progress`);
      process.exit(1);
    }
    stopping = Date.now();
    server.app.log.info({ signal }, 'stopping');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  // A closed terminal (SIGHUP) stops it as Ctrl-C and a supervisor do: the embedded database with it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
}

if (import.meta.main) {
  try {
    const server = await startServer(loadConfig());
    stopOnSignals(server);
  } catch (error) {
    console.error(`sightline: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
