import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { principalOf } from '../auth/auth-plugin.ts';
import { cachedReply, keyOf } from '../http/cached-reply.ts';
import type { ResponseCache } from '../http/response-cache.ts';
import { authenticatedErrors, bearerSecurity, Envelope, notModified, Uuid } from '../http/schemas.ts';
import { listProjects } from './list-projects.ts';

export const ProjectSummary = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    domain: Type.String({ description: 'bare host, no scheme, no www.' }),
  },
  { title: 'ProjectSummary' },
);

export async function projectRoutes(app: FastifyInstance, options: { db: Kysely<DB>; cache: ResponseCache }): Promise<void> {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/api/v1/projects',
    {
      config: { scope: 'read' },
      schema: {
        summary: "List the key's projects, oldest first",
        description: 'Every project (brand) in the key\'s workspace; a project-scoped key sees only its own.',
        tags: ['projects'],
        security: bearerSecurity,
        response: {
          200: Envelope(Type.Object({ projects: Type.Array(ProjectSummary) })),
          ...notModified,
          ...authenticatedErrors,
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const key = keyOf({ route: 'projects', workspace: principal.workspaceId, scope: principal.projectId, version: principal.workspaceVersion });
      return cachedReply(request, reply, options.cache, key, async () => ({ data: { projects: await listProjects(options.db, principal) } }));
    },
  );
}
