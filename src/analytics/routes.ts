import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { projectOf } from '../auth/auth-plugin.ts';
import { cachedReply, keyOf } from '../http/cached-reply.ts';
import type { ResponseCache } from '../http/response-cache.ts';
import { BadRequestError, NotFoundError } from '../http/errors.ts';
import { bearerSecurity, Envelope, enumOf, IsoDate, notModified, Nullable, projectErrors, Uuid } from '../http/schemas.ts';
import { ARTICLE_TYPES, SOURCE_TYPES } from '../runs/vocabulary.ts';
import { echo, FilterQuery, InsightsFilters, resolveFilters, resolveKnownFilters, type Filters } from './filters.ts';
import { getDailySeries } from './get-daily-series.ts';
import { getRanking } from './get-ranking.ts';
import { getSourceDomains } from './get-source-domains.ts';
import { listSubjects } from './list-subjects.ts';

const ProjectParams = Type.Object({ id: { ...Uuid, description: 'the project (brand) id' } });

const SubjectType = enumOf(['brand', 'competitor']);

const rateFields = {
  sampleSize: Type.Integer({ description: 'completed (ok) runs; the visibility denominator' }),
  mentionRuns: Type.Integer({ description: 'completed runs mentioning the subject; the numerator' }),
  visibility: Nullable(Type.Number({ description: 'mentionRuns / sampleSize as a percentage; null under 5 completed runs (unmeasured, never 0)' })),
  rateWithheld: Type.Optional(Type.String({ description: 'present only when visibility is null: why' })),
  ciLow: Type.Number({ description: 'Wilson 95% lower bound, 0-100; 0 at n = 0' }),
  ciHigh: Type.Number({ description: 'Wilson 95% upper bound, 0-100; 100 at n = 0' }),
  shareOfVoice: Nullable(Type.Number({ description: "the subject's mentions over all tracked subjects' mentions, %; null when nobody was mentioned" })),
  avgPosition: Nullable(Type.Number({ description: 'mean placement within the answer; null when never placed' })),
  sentiment: Nullable(Type.Number({ description: 'mean sentiment 0-100; null when nothing was scored' })),
  sentimentCount: Type.Integer({ description: 'mentions carrying a sentiment score' }),
  mentions: Type.Integer({ description: 'sum of mention counts' }),
  citations: Type.Integer({ description: "citations of the subject's domain, hallucinated ones excluded" }),
};

const TimeseriesPoint = Type.Object({ day: IsoDate, ...rateFields }, { title: 'TimeseriesPoint' });

const RankingRow = Type.Object(
  {
    subjectType: SubjectType,
    subjectId: Uuid,
    name: Type.String(),
    color: Nullable(Type.String()),
    domain: Type.String(),
    ...rateFields,
  },
  { title: 'RankingRow' },
);

const StatusCounts = Type.Object(
  {
    verified: Type.Integer(),
    broken: Type.Integer(),
    hallucinated: Type.Integer({ description: 'URLs the engine invented; excluded from citedCount' }),
    unchecked: Type.Integer(),
    stale: Type.Integer(),
  },
  { title: 'StatusCounts' },
);

const SourceDomain = Type.Object(
  {
    domain: Type.String({ description: 'registrable domain' }),
    citedCount: Type.Integer({ description: 'all citations except hallucinated' }),
    totalCount: Type.Integer({ description: 'all citations, hallucinated included' }),
    statusCounts: StatusCounts,
    urls: Type.Integer({ description: 'distinct URLs seen under the domain, hallucinated included' }),
    articleTypes: Type.Array(enumOf(ARTICLE_TYPES)),
    lastSeen: IsoDate,
    sourceType: enumOf(SOURCE_TYPES, 'editorial relationship to the brand'),
  },
  { title: 'SourceDomain' },
);

const TimeseriesQuery = Type.Object({
  ...FilterQuery.properties,
  subjectType: Type.Optional({ ...SubjectType, description: "whose series; default the project's brand" }),
  subjectId: Type.Optional({ ...Uuid, description: 'competitor id; required when subjectType=competitor' }),
});

const common = { security: bearerSecurity, tags: ['analytics'] };
const config = { scope: 'read', projectParam: 'id' } as const;

export interface AnalyticsDeps {
  db: Kysely<DB>;
  now: () => Date;
  cache: ResponseCache;
  /** The answer engines' ids (a reference table, read at start-up). */
  engineIds: ReadonlySet<string>;
}

/** What a read's body depends on: the route, the project's data as of its version, the resolved filters. */
const readKey = (route: string, project: { id: string; data_version: number }, f: Filters, extra: Record<string, unknown> = {}) =>
  keyOf({ route, project: project.id, version: project.data_version, from: f.from, to: f.to, engine: f.engineId, topic: f.topicId, location: f.location, branded: f.branded, ...extra });

export async function analyticsRoutes(app: FastifyInstance, options: AnalyticsDeps): Promise<void> {
  const { db, now, cache, engineIds } = options;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/api/v1/projects/:id/visibility/timeseries',
    {
      config,
      schema: {
        ...common,
        summary: 'Daily visibility of the brand or a competitor',
        description: 'One point per day over the whole range, unsampled days included.',
        params: ProjectParams,
        querystring: TimeseriesQuery,
        response: {
          200: Envelope(
            Type.Object({
              subject: Type.Object({ subjectType: SubjectType, subjectId: Uuid }),
              filters: InsightsFilters,
              series: Type.Array(TimeseriesPoint),
            }),
          ),
          ...notModified,
          ...projectErrors,
        },
      },
    },
    async (request, reply) => {
      const project = projectOf(request);
      const { subjectType, subjectId, ...filterQuery } = request.query;
      if (subjectType === 'competitor' && subjectId === undefined) {
        throw new BadRequestError('subjectType=competitor needs subjectId', { subjectId: 'is required when subjectType is competitor' });
      }
      const known = resolveKnownFilters(project.id, filterQuery, now(), engineIds);
      return cachedReply(request, reply, cache, readKey('timeseries', project, known, { subjectType, subjectId: subjectId?.toLowerCase() }), async () => {
        const subjects = await listSubjects(db, project);
        const wanted = subjectId?.toLowerCase() ?? project.id;
        const subject = subjects.find((s) => s.subjectId === wanted && (subjectType === undefined || s.subjectType === subjectType));
        if (!subject) throw new NotFoundError(`no ${subjectType ?? 'subject'} ${wanted} in this project`);
        const filters = await resolveFilters(db, project.id, filterQuery, now(), engineIds);
        return {
          data: {
            subject: { subjectType: subject.subjectType, subjectId: subject.subjectId },
            filters: echo(filters),
            series: await getDailySeries(db, filters, subject),
          },
        };
      });
    },
  );

  typed.get(
    '/api/v1/projects/:id/visibility/ranking',
    {
      config,
      schema: {
        ...common,
        summary: 'The brand against its tracked competitors over the range',
        description: 'Visibility descending (withheld last), then mention runs descending, then name.',
        params: ProjectParams,
        querystring: FilterQuery,
        response: { 200: Envelope(Type.Object({ filters: InsightsFilters, rows: Type.Array(RankingRow) })), ...notModified, ...projectErrors },
      },
    },
    async (request, reply) => {
      const project = projectOf(request);
      const known = resolveKnownFilters(project.id, request.query, now(), engineIds);
      return cachedReply(request, reply, cache, readKey('ranking', project, known), async () => {
        const filters = await resolveFilters(db, project.id, request.query, now(), engineIds);
        const subjects = await listSubjects(db, project);
        return { data: { filters: echo(filters), rows: await getRanking(db, filters, subjects) } };
      });
    },
  );

  typed.get(
    '/api/v1/projects/:id/citations',
    {
      config,
      schema: {
        ...common,
        summary: 'Domains cited by AI answers, with counts per verification status',
        description: 'Hallucinated citations are listed but excluded from cited counts. Most cited first.',
        params: ProjectParams,
        querystring: FilterQuery,
        response: { 200: Envelope(Type.Object({ filters: InsightsFilters, domains: Type.Array(SourceDomain) })), ...notModified, ...projectErrors },
      },
    },
    async (request, reply) => {
      const project = projectOf(request);
      const known = resolveKnownFilters(project.id, request.query, now(), engineIds);
      return cachedReply(request, reply, cache, readKey('citations', project, known), async () => {
        const filters = await resolveFilters(db, project.id, request.query, now(), engineIds);
        const subjects = await listSubjects(db, project);
        const competitorDomains = subjects.filter((s) => s.subjectType === 'competitor').map((s) => s.domain);
        return { data: { filters: echo(filters), domains: await getSourceDomains(db, filters, project.domain, competitorDomains) } };
      });
    },
  );
}
