import cors from '@fastify/cors';
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { ServerOptions } from 'node:http';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { DB } from './db/types.ts';
import type { TrustProxy } from './config.ts';
import { authPlugin } from './auth/auth-plugin.ts';
import { compressJson } from './http/compress-json.ts';
import { clientErrorHandler, frameworkErrors, installErrorHandling } from './http/error-handler.ts';
import { logRequests } from './http/log-requests.ts';
import { registerOpenApi } from './http/openapi.ts';
import { layeredCache, memoryCache, redisCache } from './http/response-cache.ts';
import { openApiRoute } from './http/openapi-route.ts';
import { registerKeyRateLimit } from './http/rate-limit.ts';
import { ErrorBody } from './http/schemas.ts';
import { refuseUnstorableInput } from './http/storable-input.ts';
import { analyticsRoutes } from './analytics/routes.ts';
import { changeRoutes } from './changes/routes.ts';
import { engineRoutes } from './engines/routes.ts';
import { projectRoutes } from './projects/routes.ts';
import { topicRoutes } from './topics/routes.ts';
import { publicTrafficRoutes, trafficRoutes } from './traffic/routes.ts';
import { usageRoutes } from './usage/routes.ts';
import { accountRoutes, sessionPlugin } from './accounts/routes.ts';
import { managementRoutes } from './management/routes.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { docsRoutes } from './docs/docs-routes.ts';
import { webRoutes } from './web/routes.ts';
import type { ToolDeps } from './mcp/tools.ts';
import { createOutbound } from './outbound/outbound.ts';
import type { ResolveMap } from './outbound/resolve-map.ts';
import { serviceUserAgent } from './outbound/user-agent.ts';
import { promptRoutes } from './prompts/routes.ts';
import { runRoutes } from './runs/routes.ts';
import { planningRoutes } from './planning/routes.ts';
import { verificationRoutes } from './verification/routes.ts';
import type { EngineKey } from './runs/vocabulary.ts';

export interface AppOptions {
  db: Kysely<DB>;
  /** Shares rate-limit windows between instances; in-process windows without it. */
  redis?: Redis | undefined;
  logger?: FastifyServerOptions['logger'];
  /** The clock; tests pin it. */
  now?: () => Date;
  /** The service's base address for documents it serves; derived from the request when unset. */
  publicUrl?: string | undefined;
  /** Behind a load balancer: which X-Forwarded-For hops to believe (config.ts `TrustProxy`). */
  trustProxy?: TrustProxy | true | undefined;
  /** Requests slower than this are logged at info (besides errors); the rest at debug. */
  slowRequestMs?: number | undefined;
  /** The engines whose provider has a key (a prompt naming no engine is checked on these). */
  configuredEngines?: readonly EngineKey[] | undefined;
  /** How the service names itself to webhooks (configuredUserAgent); else by its public address or localhost. */
  userAgent?: string | undefined;
  /** SIGHTLINE_RESOLVE, for the webhooks the app adds (checked by the guarded client). */
  resolve?: ResolveMap | undefined;
  /** What MCP's sample_now (without dryRun) queues with and verify_now checks with; absent: they plan and report only. */
  sampler?: ToolDeps['sampler'];
  verifier?: ToolDeps['verifier'];
  /** SIGHTLINE_IMPORT_BATCH, for run files imported from the app. */
  importBatch?: number | undefined;
  /** How long a request may take to arrive, headers and body (Node's default, 300 s); tests shorten it. */
  requestTimeoutMs?: number | undefined;
}

/** Node's own default, which Fastify turns off: without it a body dripped in holds its connection for ever. */
const REQUEST_TIMEOUT_MS = 300_000;

/** Paths anyone may call, from any origin. Everything else needs a key and sends no CORS headers. */
const PUBLIC_PATHS = new Set(['/api/v1/openapi.json', '/api/v1/bots.json', '/api/beacon.js', '/api/beacon', '/bots']);

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    // Query strings and bodies are checked by the route schemas; every offending field is named.
    ajv: { customOptions: { allErrors: true, coerceTypes: 'array', removeAdditional: true, useDefaults: true } },
    routerOptions: { ignoreTrailingSlash: true },
    trustProxy: fastifyTrustProxy(options.trustProxy),
    frameworkErrors,
    clientErrorHandler,
    ...requestTimeouts(options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS),
    // One line a request is noise at a million requests a day: errors and slow ones only (log-requests.ts).
    logController: new LogController({ disableRequestLogging: true }),
  });
  const engineIds = new Set((await options.db.selectFrom('engines').select('id').execute()).map((e) => e.id));
  const near = memoryCache();
  const cache = options.redis ? layeredCache(near, redisCache(options.redis)) : near;
  const deps = { db: options.db, now: options.now ?? (() => new Date()), redis: options.redis, publicUrl: options.publicUrl, cache, engineIds, configuredEngines: options.configuredEngines ?? [] };

  const webhookOutbound = createOutbound({ userAgent: options.userAgent ?? serviceUserAgent(options.publicUrl ?? 'http://localhost'), resolve: options.resolve });
  app.addHook('onClose', () => webhookOutbound.close());

  installErrorHandling(app);
  // Answered before its body arrived (refused by the auth hook, say): the connection closes with the
  // answer, rather than waiting on a body no one will read and then timing out on it (408).
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete) void reply.header('connection', 'close');
  });
  logRequests(app, options.slowRequestMs ?? 500);
  refuseUnstorableInput(app);
  compressJson(app);
  app.addSchema(ErrorBody);
  await registerOpenApi(app);
  await app.register(cors, {
    delegator: (request, callback) => {
      const path = (request.url ?? '').split('?')[0] ?? '';
      callback(null, PUBLIC_PATHS.has(path) ? { origin: '*', methods: ['GET', 'HEAD', 'POST', 'OPTIONS'] } : { origin: false });
    },
  });

  await app.register(openApiRoute, { publicUrl: options.publicUrl });
  await app.register(docsRoutes);
  await app.register(sessionPlugin, { db: deps.db, now: deps.now, publicPaths: PUBLIC_PATHS });
  await app.register(accountRoutes, deps);
  await app.register(managementRoutes, {
    ...deps,
    webhookOutbound,
    providers: options.sampler?.providers ?? [],
    sampler: options.sampler,
    verifier: options.verifier,
    importBatch: options.importBatch,
    verifyForMs: 20_000,
    onError: (error) => app.log.error({ err: error }, 'work started from the app failed'),
  });
  await app.register(publicTrafficRoutes, deps);
  await app.register(webRoutes, deps);

  // Everything below needs an API key with the route's scope, and is rate limited per key.
  await app.register(async (authenticated) => {
    await authenticated.register(authPlugin, { db: deps.db });
    await registerKeyRateLimit(authenticated, options.redis);
    await authenticated.register(projectRoutes, deps);
    await authenticated.register(usageRoutes, deps);
    await authenticated.register(engineRoutes, deps);
    await authenticated.register(topicRoutes, deps);
    await authenticated.register(analyticsRoutes, deps);
    await authenticated.register(changeRoutes, deps);
    await authenticated.register(trafficRoutes, deps);
    await authenticated.register(promptRoutes, deps);
    await authenticated.register(runRoutes, deps);
    await authenticated.register(planningRoutes, deps);
    await authenticated.register(verificationRoutes, deps);
    await authenticated.register(mcpRoutes, { ...deps, sampler: options.sampler, verifier: options.verifier });
  });

  return app;
}

/** SIGHTLINE_TRUST_PROXY for Fastify: a hop count believes that many proxies nearest the service. */
function fastifyTrustProxy(trust: AppOptions['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust ?? false;
}

/**
 * A request must arrive whole (headers and body) within `ms`, its headers within a minute at most;
 * Node checks every connection against them every `ms / 4` (30 s at most), and refuses with a 408
 * (clientErrorHandler puts it in the error body).
 */
function requestTimeouts(ms: number): { requestTimeout: number; http: ServerOptions } {
  return { requestTimeout: ms, http: { requestTimeout: ms, headersTimeout: Math.min(60_000, ms), connectionsCheckingInterval: Math.min(30_000, Math.ceil(ms / 4)) } };
}
