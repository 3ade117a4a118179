import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { projectOf } from '../auth/auth-plugin.ts';
import { cachedReply, keyOf } from '../http/cached-reply.ts';
import type { ResponseCache } from '../http/response-cache.ts';
import { resolveRange } from '../analytics/filters.ts';
import { bearerSecurity, Envelope, IsoDate, notModified, Nullable, projectErrors, Uuid } from '../http/schemas.ts';
import { KIND_LABELS } from './evaluate-changes.ts';
import { listChanges } from './list-changes.ts';

const ChangeEvent = Type.Object(
  {
    id: Uuid,
    day: { ...IsoDate, description: 'the day evaluated' },
    kind: Type.Union(Object.keys(KIND_LABELS).map((k) => Type.Literal(k))),
    kindLabel: Type.String(),
    subjectType: Type.Union([Type.Literal('brand'), Type.Literal('competitor')]),
    subjectName: Type.String(),
    engineLabel: Nullable(Type.String({ description: 'null when the move is across all engines' })),
    summary: Type.String({ description: 'one-line human summary of the two values' }),
    detail: Type.Object({}, { additionalProperties: true, description: 'kind-specific evidence: the two values, the delta, both intervals, both sample sizes' }),
    detectedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'ChangeEvent' },
);

export async function changeRoutes(app: FastifyInstance, options: { db: Kysely<DB>; now: () => Date; cache: ResponseCache }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/projects/:id/changes',
    {
      config: { scope: 'read', projectParam: 'id' },
      schema: {
        summary: 'Statistically significant day-over-day changes, newest first',
        description:
          'The 50 most recent events in the window. Only `from` and `to` apply: engine, topic, location and branded filters are not applied here.',
        tags: ['analytics'],
        security: bearerSecurity,
        params: Type.Object({ id: Uuid }),
        querystring: Type.Object({
          from: Type.Optional({ ...IsoDate, description: 'range start, inclusive; default `to` minus 27 days' }),
          to: Type.Optional({ ...IsoDate, description: 'range end, inclusive; default today (UTC)' }),
        }),
        response: {
          200: Envelope(Type.Object({ filters: Type.Object({ from: IsoDate, to: IsoDate }), events: Type.Array(ChangeEvent) })),
          ...notModified,
          ...projectErrors,
        },
      },
    },
    async (request, reply) => {
      const project = projectOf(request);
      const range = resolveRange(request.query, options.now());
      const key = keyOf({ route: 'changes', project: project.id, version: project.data_version, ...range });
      return cachedReply(request, reply, options.cache, key, async () => ({
        data: { filters: range, events: await listChanges(options.db, project.id, range.from, range.to) },
      }));
    },
  );
}
