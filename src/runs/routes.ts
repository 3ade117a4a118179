import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { projectOf } from '../auth/auth-plugin.ts';
import { echo, FilterQuery, InsightsFilters, resolveFilters } from '../analytics/filters.ts';
import { listSubjects } from '../analytics/list-subjects.ts';
import { NotFoundError } from '../http/errors.ts';
import { bearerSecurity, Envelope, enumOf, IsoDate, Nullable, projectErrors, Uuid } from '../http/schemas.ts';
import { getRun } from './get-run.ts';
import { listRuns } from './list-runs.ts';

const RunMention = Type.Object({
  subjectType: enumOf(['brand', 'competitor']),
  subjectId: Uuid,
  name: Type.String(),
  position: Nullable(Type.Integer()),
  count: Type.Integer(),
  sentiment: Nullable(Type.Number({ description: '0-100; null: not scored' })),
});

const summaryFields = {
  id: Uuid,
  promptId: Uuid,
  prompt: Type.String({ description: 'the question asked' }),
  engineId: Uuid,
  engine: Type.String({ description: 'the engine key, e.g. chatgpt' }),
  topicId: Nullable(Uuid),
  location: Nullable(Type.String()),
  branded: Type.Boolean(),
  ranAt: Type.String({ format: 'date-time' }),
  day: IsoDate,
  status: enumOf(['ok', 'failed', 'no_answer']),
  mentions: Type.Array(RunMention, { description: 'tracked subjects the answer names' }),
  citationCount: Type.Integer(),
  source: enumOf(['import', 'sampled']),
  provider: Nullable(Type.String()),
  model: Nullable(Type.String()),
  surface: Nullable(enumOf(['api', 'serp'])),
  sentimentMethod: Nullable(Type.String({ description: "the scorer of the mentions' sentiment where the service scored them (lexicon:... or llm:<model>)" })),
  untrackedSubjectIds: Type.Array(Uuid, {
    description:
      "competitors this run did not track: added after it was recorded and not found by a search of its answer text. The run is outside their samples: a competitor's sampleSize counts the completed runs without it here",
  }),
};

const RunSummary = Type.Object(summaryFields, { title: 'RunSummary' });

const RunDetail = Type.Object(
  {
    ...summaryFields,
    answer: Nullable(Type.String()),
    citations: Type.Array(
      Type.Object({
        url: Type.String(),
        displayUrl: Type.String(),
        domain: Type.String(),
        status: enumOf(['verified', 'broken', 'hallucinated', 'unchecked', 'stale']),
        articleType: Type.String(),
        subjectType: Nullable(enumOf(['brand', 'competitor'])),
        subjectId: Nullable(Uuid),
      }),
    ),
    ads: Type.Array(Type.Object({ advertiser: Type.String(), url: Nullable(Type.String()), competitorId: Nullable(Uuid) })),
    sources: Type.Array(Type.String(), { description: 'pages the engine retrieved, where the provider reports them' }),
    fanOutQueries: Type.Array(Type.String()),
    latencyMs: Nullable(Type.Integer()),
    costUsd: Nullable(Type.Number({ description: "the provider's reported cost, where it reports one" })),
    reason: Nullable(Type.String({ description: 'why it failed or had no answer' })),
    checkId: Nullable(Uuid),
  },
  { title: 'RunDetail' },
);

const RunsQuery = Type.Object({
  ...FilterQuery.properties,
  promptId: Type.Optional({ ...Uuid, description: 'one prompt' }),
  status: Type.Optional(enumOf(['ok', 'failed', 'no_answer'])),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 300, description: 'nextCursor of the previous page' })),
});

const common = { security: bearerSecurity, tags: ['runs'] };
const config = { scope: 'read', projectParam: 'id' } as const;

/** The answers behind every number (operations.md section 6). */
export async function runRoutes(app: FastifyInstance, options: { db: Kysely<DB>; now: () => Date; engineIds: ReadonlySet<string> }): Promise<void> {
  const { db, now, engineIds } = options;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/v1/projects/:id/runs',
    {
      config,
      schema: {
        ...common,
        summary: "The project's runs, newest first",
        description: 'The analytics filters plus promptId and status; pages of `limit` (at most 100), the next one from `nextCursor`.',
        params: Type.Object({ id: Uuid }),
        querystring: RunsQuery,
        response: { 200: Envelope(Type.Object({ filters: InsightsFilters, runs: Type.Array(RunSummary), nextCursor: Nullable(Type.String()) })), ...projectErrors },
      },
    },
    async (request) => {
      const project = projectOf(request);
      const { promptId, status, limit, cursor, ...filterQuery } = request.query;
      const filters = await resolveFilters(db, project.id, filterQuery, now(), engineIds);
      const subjects = await listSubjects(db, project);
      const page = await listRuns(db, filters, { promptId: promptId?.toLowerCase(), status, limit: limit ?? 50, cursor }, subjects);
      return { data: { filters: echo(filters), ...page } };
    },
  );

  typed.get(
    '/api/v1/projects/:id/runs/:runId',
    {
      config,
      schema: {
        ...common,
        summary: 'One run: its answer, the pages it cites, its ads and how it was captured',
        params: Type.Object({ id: Uuid, runId: Uuid }),
        response: { 200: Envelope(RunDetail), ...projectErrors },
      },
    },
    async (request) => {
      const project = projectOf(request);
      const run = await getRun(db, project.id, request.params.runId.toLowerCase(), await listSubjects(db, project));
      if (!run) throw new NotFoundError(`no run ${request.params.runId} in this project`);
      return { data: run };
    },
  );
}
