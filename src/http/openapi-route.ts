import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

/** GET /api/v1/openapi.json: public, the generated document, flat. */
export async function openApiRoute(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/v1/openapi.json',
    {
      schema: {
        summary: 'The OpenAPI 3.0.3 description of this API',
        tags: ['meta'],
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'an OpenAPI 3.0.3 document' }) },
      },
    },
    async () => app.swagger(),
  );
}
