import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { projectOf } from '../auth/auth-plugin.ts';
import { bearerSecurity, Envelope, enumOf, Nullable, projectErrors, Uuid } from '../http/schemas.ts';
import { ENGINE_KEYS, type EngineKey } from '../runs/vocabulary.ts';
import { listPrompts } from './list-prompts.ts';
import { CADENCES } from './prompt-settings.ts';

export const PromptSchema = Type.Object(
  {
    id: Uuid,
    text: Type.String(),
    topic: Nullable(Type.String({ description: "the topic's name" })),
    topicId: Nullable(Uuid),
    branded: Type.Boolean(),
    locations: Type.Array(Type.String(), { description: "where it is checked; empty: once, at the provider's default" }),
    engines: Type.Array(enumOf(ENGINE_KEYS), { description: 'the engines it is checked on' }),
    enginesChosen: Type.Boolean({ description: "false: every configured engine (the prompt names none)" }),
    samples: Type.Integer({ description: 'checks per engine and location per cycle' }),
    cadence: enumOf(CADENCES),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Prompt' },
);

export async function promptRoutes(app: FastifyInstance, options: { db: Kysely<DB>; configuredEngines: readonly EngineKey[] }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/projects/:id/prompts',
    {
      config: { scope: 'read', projectParam: 'id' },
      schema: {
        summary: "The project's prompts: what is asked, where, of which engines, how often",
        description: 'Removed prompts are left out. Prompts an import created are listed paused until added to be checked.',
        tags: ['sampling'],
        security: bearerSecurity,
        params: Type.Object({ id: Uuid }),
        response: { 200: Envelope(Type.Object({ prompts: Type.Array(PromptSchema) })), ...projectErrors },
      },
    },
    async (request) => {
      const project = projectOf(request);
      return { data: { prompts: await listPrompts(options.db, project.id, options.configuredEngines) } };
    },
  );
}
