import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { planOf } from '../workspaces/plans.ts';
import { monthStart, nextMonthStart, previousMonthStart } from './calendar.ts';

export interface CreditPeriod {
  period: string;
  allowance: number;
  rollover: number;
  granted: number;
  consumed: number;
}

type Db = Kysely<DB> | Transaction<DB>;

/**
 * The workspace's credit period starting on `period` (a month start), opened on first use.
 * Opening fixes the rollover: what the previous period left unused, at most one allowance; the
 * previous period is opened first (back to the workspace's first month), so a month nobody looked
 * at still carries its balance. The allowance follows the workspace's current plan.
 */
export async function openCreditPeriod(db: Db, workspaceId: string, period: string): Promise<CreditPeriod | undefined> {
  const workspace = await db
    .selectFrom('workspaces')
    .select(['plan', 'created_at'])
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  if (!workspace) return undefined;
  const allowance = planOf(workspace.plan).monthlyCredits;
  const firstPeriod = monthStart(workspace.created_at);
  if (period < firstPeriod) return undefined;

  let row = await db
    .selectFrom('credit_periods')
    .select(['allowance', 'rollover'])
    .where('workspace_id', '=', workspaceId)
    .where('period', '=', period)
    .executeTakeFirst();
  if (!row) {
    const previous = await openCreditPeriod(db, workspaceId, previousMonthStart(period));
    const unused = previous ? previous.allowance + previous.rollover + previous.granted - previous.consumed : 0;
    const rollover = Math.min(Math.max(unused, 0), allowance);
    await db
      .insertInto('credit_periods')
      .values({ workspace_id: workspaceId, period, allowance, rollover })
      .onConflict((oc) => oc.columns(['workspace_id', 'period']).doNothing())
      .execute();
    row = await db
      .selectFrom('credit_periods')
      .select(['allowance', 'rollover'])
      .where('workspace_id', '=', workspaceId)
      .where('period', '=', period)
      .executeTakeFirstOrThrow();
  }
  if (row.allowance !== allowance) {
    await db
      .updateTable('credit_periods')
      .set({ allowance })
      .where('workspace_id', '=', workspaceId)
      .where('period', '=', period)
      .execute();
  }
  const totals = await db
    .selectFrom('credit_daily')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>('granted'), eb.lit(0)).as('granted'),
      eb.fn.coalesce(eb.fn.sum<number>('consumed'), eb.lit(0)).as('consumed'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('day', '>=', period)
    .where('day', '<', nextMonthStart(period))
    .executeTakeFirstOrThrow();
  return {
    period,
    allowance,
    rollover: row.rollover,
    granted: Number(totals.granted),
    consumed: Number(totals.consumed),
  };
}

export function available(p: CreditPeriod): number {
  return roundCredits(p.allowance + p.rollover + p.granted - p.consumed);
}

/** Credits carry four decimals (numeric(14, 4)); sums in floating point are brought back to them. */
export function roundCredits(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
