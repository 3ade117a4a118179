import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { projectOf } from '../auth/auth-plugin.ts';
import { bearerSecurity, Envelope, Nullable, projectErrors, Uuid } from '../http/schemas.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import { planSamples } from './plan-samples.ts';

const nullableNumber = (description: string) => Nullable(Type.Number({ description }));

const PlanSchema = Type.Object(
  {
    visibility: nullableNumber("the brand's visibility over the last 28 days, %; null when unmeasured"),
    sampleSize: Type.Integer({ description: 'completed runs behind it' }),
    baseline: Type.Number({ description: 'the visibility the plan starts from (50 when unmeasured: the most demanding)' }),
    delta: Type.Number({ description: 'the move to detect, points, up or down' }),
    power: Type.Number({ description: 'the chance the change rule reports such a move' }),
    runsPerDay: Nullable(Type.Integer({ description: 'completed runs needed on each day compared; null: the rule never reaches the power for this move (a move of 10 points or less)' })),
    completionRate: nullableNumber('answered share of checks over the last 28 days; null when nothing was sampled'),
    checksPerDay: Nullable(Type.Integer({ description: 'checks a day for runsPerDay at the completion rate; null when runsPerDay is null or no check of the last 28 days answered' })),
    current: Type.Object({ checksPerDay: Type.Number(), creditsPerDay: Type.Number() }, { description: 'the prompt set as it is' }),
    needed: Type.Object(
      {
        samples: Nullable(Type.Integer({ description: 'samples per daily prompt, engine and location' })),
        checksPerDay: Nullable(Type.Integer()),
        creditsPerDay: Nullable(Type.Number()),
        creditsPerMonth: Nullable(Type.Number()),
        usdPerMonth: Nullable(Type.Number()),
      },
      { description: 'the daily prompts sampled enough for the power; null without a daily prompt on a configured engine' },
    ),
    enough: Type.Boolean({ description: 'whether the prompt set samples enough now' }),
  },
  { title: 'SamplePlan' },
);

export async function planningRoutes(app: FastifyInstance, options: { db: Kysely<DB>; now: () => Date; configuredEngines: readonly EngineKey[] }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/projects/:id/plan',
    {
      config: { scope: 'read', projectParam: 'id' },
      schema: {
        summary: 'Sample-size planner: runs a day to detect a visibility change, and what they cost',
        description:
          'For the brand\'s current visibility: the completed runs a day with which the change rule (both days at least 5 runs, Wilson 95% intervals apart, at least 10 points) reports a move of `delta` points with 80% power, computed exactly over binomial outcomes; and the samples per daily prompt and the credits that takes.',
        tags: ['sampling'],
        security: bearerSecurity,
        params: Type.Object({ id: Uuid }),
        querystring: Type.Object({ delta: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 20, description: 'the move to detect, in points' })) }),
        response: { 200: Envelope(PlanSchema), ...projectErrors },
      },
    },
    async (request) => {
      const project = projectOf(request);
      return { data: await planSamples(options.db, project, request.query.delta ?? 20, options.configuredEngines, options.now()) };
    },
  );
}
