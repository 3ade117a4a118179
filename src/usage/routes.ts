import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { DB } from '../db/types.ts';
import { principalOf } from '../auth/auth-plugin.ts';
import { authenticatedErrors, bearerSecurity, Envelope, IsoDate } from '../http/schemas.ts';
import { getUsage } from './get-usage.ts';
import { PER_ACTION, PER_ENGINE_CHECK } from './pricing.ts';

const numbersByKey = (keys: readonly string[], description: string) =>
  Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Number()])), { description, additionalProperties: false });

export const UsageSchema = Type.Object(
  {
    plan: Type.String(),
    credits: Type.Object({
      period: { ...IsoDate, description: 'first day of the current UTC month' },
      available: Type.Number({ description: 'allowance + rollover + granted - consumed' }),
      allowance: Type.Number({ description: "the plan's monthly credits" }),
      rollover: Type.Number({ description: 'unused credits carried from the previous month, at most one allowance' }),
      granted: Type.Number({ description: 'credits granted this month' }),
      consumed: Type.Number({ description: 'credits used this month' }),
      enforced: Type.Boolean({ description: 'whether running out of credits currently refuses work' }),
    }),
    pricing: Type.Object({
      usdPerCredit: Type.Number(),
      perEngineCheck: numbersByKey(Object.keys(PER_ENGINE_CHECK), 'credits per check, per answer engine'),
      perAction: numbersByKey(Object.keys(PER_ACTION), 'credits per billable action'),
    }),
    dailySpend: Type.Object({
      spentUsd: Type.Number({ description: "today's (UTC) consumption in USD" }),
      ceilingUsd: Type.Number({ description: "the workspace's daily spend ceiling in USD" }),
    }),
  },
  { title: 'Usage' },
);

export async function usageRoutes(app: FastifyInstance, options: { db: Kysely<DB>; now: () => Date }): Promise<void> {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/usage',
    {
      config: { scope: 'read' },
      schema: {
        summary: "The workspace's credit balance this month and the price table",
        tags: ['usage'],
        security: bearerSecurity,
        response: { 200: Envelope(UsageSchema), ...authenticatedErrors },
      },
    },
    async (request) => ({ data: await getUsage(options.db, principalOf(request).workspaceId, options.now()) }),
  );
}
