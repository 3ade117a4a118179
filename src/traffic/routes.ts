import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import { clientAddressKey } from '../http/client-key.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { projectOf } from '../auth/auth-plugin.ts';
import { resolveRange } from '../analytics/filters.ts';
import { strictBodies } from '../http/strict-bodies.ts';
import { BadRequestError, RateLimitedError } from '../http/errors.ts';
import { bearerSecurity, Envelope, IsoDate, projectErrors, Uuid } from '../http/schemas.ts';
import { BEACON_SCRIPT } from './beacon-script.ts';
import { renderBotsPage } from './bots-page.ts';
import { CRAWLERS, PLATFORMS, REGISTRY_SCHEMA_VERSION, ROBOTS_TXT_TOKENS } from './crawler-registry.ts';
import { getTraffic } from './get-traffic.ts';
import { ingestLog } from './ingest-log.ts';
import { recordBeacon } from './record-beacon.ts';

const ONE_HOUR = 'public, max-age=3600';
/** Beacon requests per client address and minute. Browsers send one per page load. */
export const BEACON_RATE_LIMIT = 120;
/** Ingest body limit: 2 MiB (operations.md section 5). */
export const INGEST_BODY_LIMIT = 2_097_152;

interface Deps {
  db: Kysely<DB>;
  now: () => Date;
  redis?: Redis | undefined;
  publicUrl?: string | undefined;
}

const baseUrl = (request: FastifyRequest, publicUrl: string | undefined) => publicUrl ?? `${request.protocol}://${request.host}`;

/** An error status in a route's schema: the shared error body (so the OpenAPI document lists it). */
const errorResponse = (description: string) => ({ ...Type.Ref('ErrorBody'), description });

/** What the beacon answers besides 200 (its body is JSON sent as text/plain or application/json). */
const beaconErrors = {
  400: errorResponse('the body is not JSON, or a field is missing or invalid; `error.details` names each field. Says nothing about the brand'),
  413: errorResponse('the body is over 8 KiB'),
  415: errorResponse('the body is neither application/json nor text/plain'),
  429: errorResponse('more than 120 beacons a minute from this client address; see the retry-after header (seconds)'),
  500: errorResponse('unexpected server error; retry with backoff'),
};

/** What ingest answers besides the authenticated project errors. */
const ingestErrors = {
  413: errorResponse('the body is over 2 MiB (2,097,152 bytes); nothing is stored'),
  415: errorResponse('the body is not text/plain (or application/json, application/x-ndjson, application/octet-stream, application/x-www-form-urlencoded, all read as text)'),
};

const Crawler = Type.Object({
  name: Type.String({ description: 'canonical bot name as it appears in the user-agent' }),
  platform: Type.String({ description: 'machine key' }),
  platformLabel: Type.String(),
  token: Type.String({ description: 'lowercase substring matched in the user-agent' }),
  purpose: Type.String({ description: 'training, search, user (user-initiated fetch) or agent' }),
  matchCase: Type.Optional(Type.Boolean({ description: 'present (true) when the name is matched only as written, not case-insensitively' })),
});

const RobotsTxtToken = Type.Object({
  name: Type.String({ description: 'the robots.txt user-agent token' }),
  platform: Type.String({ description: 'machine key' }),
  platformLabel: Type.String(),
  token: Type.String({ description: 'the name lower-cased; never matched in user agents' }),
});

/** Public traffic doors: the crawler registry, the snippet and the beacon. */
export async function publicTrafficRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/v1/bots.json',
    {
      schema: {
        summary: 'The registry of AI crawlers (flat, public, cacheable for an hour)',
        tags: ['traffic'],
        response: {
          200: Type.Object(
            {
              schemaVersion: Type.Integer(),
              source: Type.String({ description: "URL of the registry's human-readable page" }),
              count: Type.Integer(),
              bots: Type.Array(Crawler),
              platforms: Type.Record(Type.String(), Type.String()),
              robotsTxtOnly: Type.Array(RobotsTxtToken, {
                description: 'robots.txt tokens that no crawler sends in its user-agent (e.g. Google-Extended): for robots.txt, not for matching; not in `bots` or `count`',
              }),
            },
            { title: 'CrawlerRegistry' },
          ),
        },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', ONE_HOUR);
      return {
        schemaVersion: REGISTRY_SCHEMA_VERSION,
        source: `${baseUrl(request, deps.publicUrl)}/bots`,
        count: CRAWLERS.length,
        bots: CRAWLERS.map((c) => ({ name: c.name, platform: c.platform, platformLabel: c.platformLabel, token: c.token, purpose: c.purpose, ...(c.matchCase ? { matchCase: true } : {}) })),
        platforms: { ...PLATFORMS },
        robotsTxtOnly: ROBOTS_TXT_TOKENS.map((t) => ({ name: t.name, platform: t.platform, platformLabel: t.platformLabel, token: t.token })),
      };
    },
  );

  app.get('/bots', { schema: { hide: true } }, async (request, reply) => {
    reply.header('cache-control', ONE_HOUR).type('text/html; charset=utf-8');
    return renderBotsPage(`${baseUrl(request, deps.publicUrl)}/api/v1/bots.json`);
  });

  app.get('/api/beacon.js', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('cache-control', ONE_HOUR).type('application/javascript; charset=utf-8');
    return BEACON_SCRIPT;
  });

  // The beacon, in its own context: JSON sent as text/plain (no preflight), a small body, and a
  // rate limit per client address (hashed, never kept in clear).
  await app.register(async (beacon) => {
    // Fields taken as typed: a number where the page address belongs is refused, not read as text.
    strictBodies(beacon);
    beacon.removeContentTypeParser('text/plain');
    beacon.addContentTypeParser(['text/plain', 'application/json'], { parseAs: 'string', bodyLimit: 8_192 }, (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(new BadRequestError('the body is not valid JSON', { body: 'must be a JSON object' }));
      }
    });
    await beacon.register(rateLimit, {
      global: true,
      max: BEACON_RATE_LIMIT,
      timeWindow: 60_000,
      keyGenerator: (request) => `beacon:${createHash('sha256').update(clientAddressKey(request.ip)).digest('hex').slice(0, 32)}`,
      ...(deps.redis ? { redis: deps.redis, nameSpace: 'sightline-beacon-', skipOnError: true } : {}),
      addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
      addHeaders: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false, 'retry-after': true },
      errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
    });
    beacon.withTypeProvider<TypeBoxTypeProvider>().post(
      '/api/beacon',
      {
        // A page address from a browser is taken as web logs are: a NUL becomes U+FFFD (clean-text.ts).
        config: { ownInputChecks: true, accepts: 'application/json or text/plain (holding JSON)' },
        schema: {
          summary: 'One AI-referred page view from the snippet (no authentication; the Origin must be the brand site)',
          tags: ['traffic'],
          body: Type.Object({
            projectId: Uuid,
            url: Type.String({ minLength: 1, maxLength: 2000 }),
            referrer: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
            sessionId: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
          }),
          response: { 200: Envelope(Type.Object({ tracked: Type.Boolean() })), ...beaconErrors },
        },
      },
      async (request) => {
        const verdict = await recordBeacon(deps.db, request.body, request.headers.origin, deps.now());
        return { data: { tracked: verdict.tracked } };
      },
    );
  });
}

/** Authenticated traffic routes: server-log ingest (scope `ingest`) and the traffic report (`read`). */
export async function trafficRoutes(app: FastifyInstance, deps: Deps): Promise<void> {
  // Log text under any of these types is read as text. JSON too: a body of Caddy lines is JSON Lines,
  // which a JSON parser would refuse (several lines) or turn into an object that is no text (one line).
  app.removeContentTypeParser('application/json');
  // And a form's type: what `curl --data-binary @access.log` sends unless told otherwise.
  for (const type of ['application/json', 'application/x-ndjson', 'application/octet-stream', 'application/x-www-form-urlencoded']) {
    app.addContentTypeParser(type, { parseAs: 'string', bodyLimit: INGEST_BODY_LIMIT }, (_request, body, done) => done(null, body));
  }
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.post(
    '/api/ingest/:projectId',
    {
      bodyLimit: INGEST_BODY_LIMIT,
      config: { scope: 'ingest', projectParam: 'projectId', accepts: 'text/plain (log lines)' },
      schema: {
        summary: 'Server-log ingest: AI crawler hits and AI-referred visits from raw log lines',
        description:
          'Body: raw log text (text/plain), one entry per line, Caddy JSON and Apache/Nginx combined lines mixed. ' +
          'At most 2 MiB; a line over 16,384 characters is dropped. Each line counts once per project (deduplicated on its hash).',
        tags: ['traffic'],
        security: bearerSecurity,
        params: Type.Object({ projectId: Uuid }),
        querystring: Type.Object({
          source: Type.Optional(Type.Union([Type.Literal('rest'), Type.Literal('cf-worker')], { default: 'rest' })),
        }),
        response: {
          200: Envelope(
            Type.Object({
              linesRead: Type.Integer({ description: 'non-empty lines' }),
              crawlerHits: Type.Integer(),
              aiVisits: Type.Integer(),
              dropped: Type.Integer({
                description: 'neither an AI crawler nor an AI-referred visit, unreadable, too long, or dated outside the window (90 days back, one day ahead)',
              }),
              duplicates: Type.Integer({ description: 'lines this project had already received' }),
            }),
          ),
          ...projectErrors,
          ...ingestErrors,
        },
      },
    },
    async (request) => {
      const project = projectOf(request);
      const body = typeof request.body === 'string' ? request.body : '';
      return { data: await ingestLog(deps.db, project, body, request.query.source ?? 'rest', deps.now()) };
    },
  );

  typed.get(
    '/api/v1/projects/:id/traffic',
    {
      config: { scope: 'read', projectParam: 'id' },
      schema: {
        summary: 'AI crawler hits and AI-referred visits per day, by platform, bot and page',
        tags: ['traffic'],
        security: bearerSecurity,
        params: Type.Object({ id: Uuid }),
        querystring: Type.Object({ from: Type.Optional(IsoDate), to: Type.Optional(IsoDate) }),
        response: {
          200: Envelope(
            Type.Object({
              filters: Type.Object({ from: IsoDate, to: IsoDate }),
              days: Type.Array(
                Type.Object({
                  day: IsoDate,
                  crawlerHits: Type.Integer(),
                  crawlers: Type.Array(Type.Object({ platform: Type.String(), platformLabel: Type.String(), bot: Type.String(), hits: Type.Integer() })),
                  topCrawledPages: Type.Array(Type.Object({ path: Type.String(), hits: Type.Integer() })),
                  aiVisits: Type.Integer(),
                  visits: Type.Array(Type.Object({ platform: Type.String(), platformLabel: Type.String(), visits: Type.Integer() })),
                  topVisitedPages: Type.Array(Type.Object({ path: Type.String(), visits: Type.Integer() })),
                }),
              ),
            }),
          ),
          ...projectErrors,
        },
      },
    },
    async (request) => {
      const project = projectOf(request);
      const range = resolveRange(request.query, deps.now());
      return { data: { filters: range, days: await getTraffic(deps.db, project.id, range.from, range.to) } };
    },
  );
}
