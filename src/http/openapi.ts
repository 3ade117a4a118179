import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { SESSION_COOKIE } from '../accounts/sessions.ts';
import { attachExamples, loadExamples } from '../docs/attach-examples.ts';

/**
 * What each tag groups, for the reference's section headings. Every tag a route uses needs one
 * (src/docs/openapi-docs.test.ts); the order here is the order of the sections at /docs.
 */
export const TAGS = [
  {
    name: 'projects',
    description: 'The brands (projects) a key can see. Each project id is the `id` the project routes take; start here.',
  },
  {
    name: 'analytics',
    description:
      "How often answer engines name the brand and its competitors: daily visibility with sample sizes and Wilson 95% intervals, the ranking over a range, the domains engines cite, significant day-over-day changes, and the engines and topics the filters take. Ranges default to the last 28 days (UTC); a day under 5 completed runs has no rate (`visibility: null` with `rateWithheld`).",
  },
  {
    name: 'citations',
    description: 'Whether the pages engines cite are real: the verifier checks each cited URL (robots.txt honoured) and reports verified, broken, hallucinated and stale shares with Wilson intervals, and the brand pages engines invent.',
  },
  {
    name: 'runs',
    description: 'The answers behind every number: each run is one engine answering one prompt at one location, with the subjects it names, the pages it cites, its ads and how it was captured.',
  },
  {
    name: 'sampling',
    description: "What is asked of the engines (the project's prompts) and how much sampling a change of a given size needs (the sample-size planner).",
  },
  {
    name: 'traffic',
    description:
      "What AI does on the brand's own site: AI crawler hits and AI-referred visits, from server logs (POST /api/ingest with a key of scope `ingest`) or the browser snippet (/api/beacon.js posting to /api/beacon, no key), and the public registry of AI crawlers.",
  },
  {
    name: 'usage',
    description: "The workspace's credits: this month's balance, what was spent, and the price of each action.",
  },
  {
    name: 'app',
    description:
      "The app's session: sign in with an email and a password (the answer sets an HttpOnly session cookie and gives a `csrfToken`), read the session, sign out. A signed-in member may also call the read API without a key.",
  },
  {
    name: 'management',
    description:
      "What the CLI does, for the signed-in members of a workspace (session cookie, no API key): projects, competitors, prompts, API keys, webhooks and members. Every member reads; owners change, each change with the session's `csrfToken` in the `x-csrf-token` header. Another workspace's ids answer 404.",
  },
  {
    name: 'meta',
    description: 'This API described: the OpenAPI 3.0.3 document this reference is rendered from.',
  },
];

/**
 * The OpenAPI 3.0.3 document, generated from the route schemas. Routes added later appear by
 * themselves. TypeBox writes JSON Schema (2020-12 flavour); OpenAPI 3.0 speaks an older dialect,
 * so the finished document is rewritten: `{anyOf: [X, {type: null}]}` becomes X with
 * `nullable: true`, `const` becomes a one-value `enum`, a union of literals one `enum`, and
 * `patternProperties` (TypeBox's Record) becomes `additionalProperties`. Then the session's
 * security is noted on the app's routes, and the recorded examples (src/docs/examples.json) are
 * attached; `servers` is added per request (openapi-route.ts).
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Sightline API',
        version: '1.0.0',
        description:
          'AI-visibility analytics: how often AI answer engines name a brand and its rivals, with sample sizes ' +
          'and Wilson 95% intervals. Read endpoints live under /api/v1 and answer `{ "data": ... }`; every ' +
          'failure answers `{ "error": { "code", "message", "details"? } }`.\n\n' +
          'To try it, authorize with the demo read key the service printed when it seeded the demo (`sl_...`), ' +
          'then call GET /api/v1/projects for your project ids. The examples were recorded on the demo data: ' +
          'the ids and numbers in yours differ (engine ids are the same everywhere).',
      },
      tags: TAGS,
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'A workspace API key: `Authorization: Bearer <API_KEY>`. Send it from a server only.',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description: 'The session POST /app/session sets (HttpOnly: a browser sends it by itself, nothing to paste).',
          },
          csrfToken: {
            type: 'apiKey',
            in: 'header',
            name: 'x-csrf-token',
            description: "The session's `csrfToken` (from POST or GET /app/session): required on every request that changes something with the session.",
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject as ReturnType<SwaggerTransformObject>;
      const document = toOpenApi30(documentObject.openapiObject) as Record<string, any>;
      documentSessionAuth(document);
      attachExamples(document, loadExamples());
      return document as ReturnType<SwaggerTransformObject>;
    },
  });
}

/**
 * The app's routes (under /app/) are the session's, not a key's; they declare no security, so the
 * document says it here, as the session plugin decides (accounts/routes.ts): a session cookie, and
 * on a change its CSRF token, except signing in, which needs neither. A route that declares its
 * own security keeps it.
 */
function documentSessionAuth(document: Record<string, any>): void {
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths ?? {})) {
    if (!path.startsWith('/app/')) continue;
    for (const [method, operation] of Object.entries<Record<string, any>>(item)) {
      if (operation.security !== undefined || (path === '/app/session' && method === 'post')) continue;
      operation.security = ['get', 'head', 'options'].includes(method) ? [{ sessionCookie: [] }] : [{ sessionCookie: [], csrfToken: [] }];
    }
  }
}

/** Rewrites JSON Schema keywords OpenAPI 3.0.3 does not know into ones it does; see above. */
export function toOpenApi30(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenApi30);
  if (node === null || typeof node !== 'object') return node;
  const input = node as Record<string, unknown>;
  let out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === '$schema' || key === '$id') continue;
    out[key] = toOpenApi30(value);
  }
  if ('const' in out) {
    const value = out.const;
    delete out.const;
    out.enum = [value];
    if (out.type === undefined && typeof value !== 'object') out.type = typeof value;
  }
  if (out.patternProperties && typeof out.patternProperties === 'object') {
    const patterns = Object.values(out.patternProperties as Record<string, unknown>);
    delete out.patternProperties;
    if (patterns.length === 1) out.additionalProperties = patterns[0];
  }
  if (Array.isArray(out.type)) {
    const types = out.type.filter((t) => t !== 'null');
    if (types.length < out.type.length) out.nullable = true;
    out.type = types.length === 1 ? types[0] : types;
  }
  for (const combinator of ['anyOf', 'oneOf'] as const) {
    const options = out[combinator];
    if (!Array.isArray(options)) continue;
    const isNull = (s: unknown) => typeof s === 'object' && s !== null && (s as Record<string, unknown>).type === 'null';
    const rest = options.filter((s) => !isNull(s)) as Record<string, unknown>[];
    const nullable = rest.length < options.length;
    const { [combinator]: _dropped, ...siblings } = out;
    if (rest.length === 1) {
      out = { ...rest[0], ...siblings };
    } else if (rest.length > 1 && rest.every((s) => Array.isArray(s.enum) && s.type === rest[0]!.type)) {
      out = { ...siblings, type: rest[0]!.type, enum: rest.flatMap((s) => s.enum as unknown[]) };
    } else {
      out = { ...siblings, [combinator]: rest };
    }
    if (nullable) out.nullable = true;
  }
  return out;
}
