import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { authenticatedErrors, bearerSecurity, Envelope, Uuid } from '../http/schemas.ts';
import { listEngines } from './list-engines.ts';

export async function engineRoutes(app: FastifyInstance, options: { db: Kysely<DB> }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/engines',
    {
      config: { scope: 'read' },
      schema: {
        summary: 'The answer engines, with the ids the analytics filters take',
        tags: ['analytics'],
        security: bearerSecurity,
        response: {
          200: Envelope(Type.Object({ engines: Type.Array(Type.Object({ id: Uuid, key: Type.String(), label: Type.String() })) })),
          ...authenticatedErrors,
        },
      },
    },
    async () => ({ data: { engines: await listEngines(options.db) } }),
  );
}
