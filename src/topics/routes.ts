import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { projectOf } from '../auth/auth-plugin.ts';
import { bearerSecurity, Envelope, projectErrors, Uuid } from '../http/schemas.ts';
import { listTopics } from './list-topics.ts';

export async function topicRoutes(app: FastifyInstance, options: { db: Kysely<DB> }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/projects/:id/topics',
    {
      config: { scope: 'read', projectParam: 'id' },
      schema: {
        summary: "The project's topics, with the ids the analytics filters take",
        tags: ['analytics'],
        security: bearerSecurity,
        params: Type.Object({ id: Uuid }),
        response: { 200: Envelope(Type.Object({ topics: Type.Array(Type.Object({ id: Uuid, name: Type.String() })) })), ...projectErrors },
      },
    },
    async (request) => {
      const project = projectOf(request);
      return { data: { topics: await listTopics(options.db, project.id) } };
    },
  );
}
