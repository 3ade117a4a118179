import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';
import { monthStart, utcDay } from './calendar.ts';
import { available, openCreditPeriod, roundCredits } from './open-credit-period.ts';
import { PER_ACTION, PER_ENGINE_CHECK, USD_PER_CREDIT } from './pricing.ts';

export interface Usage {
  plan: string;
  credits: {
    period: string;
    available: number;
    allowance: number;
    rollover: number;
    granted: number;
    consumed: number;
    enforced: boolean;
  };
  pricing: {
    usdPerCredit: number;
    perEngineCheck: Record<string, number>;
    perAction: Record<string, number>;
  };
  dailySpend: { spentUsd: number; ceilingUsd: number };
}

/** The workspace's balance for the current UTC month, the price table, and today's spend. */
export async function getUsage(db: Kysely<DB>, workspaceId: string, now: Date): Promise<Usage> {
  const workspace = await db
    .selectFrom('workspaces')
    .select(['plan', 'credits_enforced', 'daily_ceiling_usd'])
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  if (!workspace) throw new NotFoundError(`no workspace ${workspaceId}`);
  const period = await db.transaction().execute((tx) => openCreditPeriod(tx, workspaceId, monthStart(now)));
  if (!period) throw new NotFoundError(`no workspace ${workspaceId}`);
  const today = await db
    .selectFrom('credit_daily')
    .select('consumed')
    .where('workspace_id', '=', workspaceId)
    .where('day', '=', utcDay(now))
    .executeTakeFirst();
  return {
    plan: workspace.plan,
    credits: {
      period: period.period,
      available: available(period),
      allowance: period.allowance,
      rollover: roundCredits(period.rollover),
      granted: roundCredits(period.granted),
      consumed: roundCredits(period.consumed),
      enforced: workspace.credits_enforced,
    },
    pricing: { usdPerCredit: USD_PER_CREDIT, perEngineCheck: { ...PER_ENGINE_CHECK }, perAction: { ...PER_ACTION } },
    dailySpend: {
      spentUsd: roundUsd((today?.consumed ?? 0) * USD_PER_CREDIT),
      ceilingUsd: workspace.daily_ceiling_usd,
    },
  };
}

export function roundUsd(value: number): number {
  return Math.round(value * 1_000_000) / 1_000_000;
}
