import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';

/**
 * GET /api/v1/openapi.json: public, the generated document, flat, with `servers` naming this
 * service: SIGHTLINE_PUBLIC_URL when set (behind a proxy the request's own host may be an internal
 * one), else the address the request came to, so "try it" in /docs calls the service it was read from.
 */
export async function openApiRoute(app: FastifyInstance, options: { publicUrl?: string | undefined } = {}): Promise<void> {
  app.get(
    '/api/v1/openapi.json',
    {
      schema: {
        summary: 'The OpenAPI 3.0.3 description of this API',
        tags: ['meta'],
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'an OpenAPI 3.0.3 document' }) },
      },
    },
    async (request) => {
      // The generated document is cached by @fastify/swagger: copied, never changed.
      const { openapi, info, ...rest } = app.swagger() as unknown as Record<string, unknown>;
      return { openapi, info, servers: [{ url: serviceUrl(request, options.publicUrl), description: 'this Sightline service' }], ...rest };
    },
  );
}

/** The service's base address: the configured public URL, else the scheme and host the request used. */
export function serviceUrl(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}
