import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { projectOf } from '../auth/auth-plugin.ts';
import { resolveKnownFilters } from '../analytics/filters.ts';
import { listEngines } from '../engines/list-engines.ts';
import { cachedReply, keyOf } from '../http/cached-reply.ts';
import type { ResponseCache } from '../http/response-cache.ts';
import { bearerSecurity, Envelope, IsoDate, notModified, Nullable, projectErrors, Uuid } from '../http/schemas.ts';
import { getCitationHealth } from './get-citation-health.ts';

const Share = Type.Object({
  count: Type.Integer(),
  share: Nullable(Type.Number({ description: '% of the URLs with a conclusive status; null when none is known' })),
  ciLow: Type.Number({ description: 'Wilson 95% lower bound, %' }),
  ciHigh: Type.Number({ description: 'Wilson 95% upper bound, %' }),
});

const healthFields = {
  urls: Type.Integer({ description: 'distinct URLs cited in the range' }),
  byStatus: Type.Object({ verified: Type.Integer(), stale: Type.Integer(), broken: Type.Integer(), hallucinated: Type.Integer(), unchecked: Type.Integer() }),
  checked: Type.Integer({ description: 'URLs with a conclusive status: the denominator of the shares' }),
  hallucinated: Share,
  broken: Share,
};

const HealthSchema = Type.Object(
  {
    filters: Type.Object({ from: IsoDate, to: IsoDate }),
    overall: Type.Object(healthFields),
    engines: Type.Array(Type.Object({ engineId: Uuid, engine: Type.String(), ...healthFields })),
    missingOwnPages: Type.Array(
      Type.Object({
        url: Type.String(),
        status: Type.Union([Type.Literal('hallucinated'), Type.Literal('stale')]),
        citations: Type.Integer({ description: 'citations in the range' }),
        engines: Type.Array(Type.String(), { description: 'engine keys citing it' }),
        lastSeen: IsoDate,
        note: Nullable(Type.String({ description: "the last check's observation" })),
      }),
      { description: "pages on the brand's own domain that engines cite but that do not exist, or no longer: redirect or create them" },
    ),
  },
  { title: 'CitationHealth' },
);

export async function verificationRoutes(app: FastifyInstance, options: { db: Kysely<DB>; now: () => Date; cache: ResponseCache }): Promise<void> {
  const engines = await listEngines(options.db);
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/projects/:id/citation-health',
    {
      config: { scope: 'read', projectParam: 'id' },
      schema: {
        summary: 'How many of the pages engines cite are real: by status per engine, hallucinated and broken shares with Wilson intervals',
        description: 'Over `from`..`to` (default the last 28 days). Statuses are the URLs\' as they are now (operations.md section 7).',
        tags: ['citations'],
        security: bearerSecurity,
        params: Type.Object({ id: Uuid }),
        querystring: Type.Object({ from: Type.Optional(IsoDate), to: Type.Optional(IsoDate) }),
        response: { 200: Envelope(HealthSchema), ...notModified, ...projectErrors },
      },
    },
    async (request, reply) => {
      const project = projectOf(request);
      const f = resolveKnownFilters(project.id, { from: request.query.from, to: request.query.to }, options.now(), new Set());
      const key = keyOf({ route: 'citation-health', project: project.id, version: project.data_version, from: f.from, to: f.to });
      return cachedReply(request, reply, options.cache, key, async () => ({ data: { filters: { from: f.from, to: f.to }, ...(await getCitationHealth(options.db, f, engines)) } }));
    },
  );
}
