import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';

/**
 * The OpenAPI 3.0.3 document, generated from the route schemas. Routes added later appear by
 * themselves. TypeBox writes JSON Schema (2020-12 flavour); OpenAPI 3.0 speaks an older dialect,
 * so the finished document is rewritten: `{anyOf: [X, {type: null}]}` becomes X with
 * `nullable: true`, `const` becomes a one-value `enum`, a union of literals one `enum`, and
 * `patternProperties` (TypeBox's Record) becomes `additionalProperties`.
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
          'failure answers `{ "error": { "code", "message", "details"? } }`.',
      },
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'A workspace API key: `Authorization: Bearer <API_KEY>`. Send it from a server only.',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: (documentObject) =>
      ('openapiObject' in documentObject
        ? toOpenApi30(documentObject.openapiObject)
        : documentObject.swaggerObject) as ReturnType<SwaggerTransformObject>,
  });
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
