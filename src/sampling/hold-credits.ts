import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { monthStart, utcDay } from '../usage/calendar.ts';
import { available, openCreditPeriod, roundCredits } from '../usage/open-credit-period.ts';
import { PER_ENGINE_CHECK, USD_PER_CREDIT } from '../usage/pricing.ts';
import type { ClaimedCheck } from './claim-checks.ts';

/** Held, skipped (nothing sent), or lost: the claim lapsed and another worker owns the check now. */
export type Hold = { held: number } | { skipped: 'quota_exceeded'; message: string } | { lost: true };

/**
 * Before anything is sent to a provider: can the workspace pay for this check? The credits of the
 * checks in flight are held (`checks.credits` while running), so concurrent checks cannot overdraw
 * together; the held credits are charged when the check is answered and released when it fails.
 * Under the workspace's row lock: today's spend, the held credits and this check must stay within
 * the daily ceiling (always); with credits enforced, the balance less the held credits must pay
 * for it. Otherwise the check is skipped (`quota_exceeded`) and nothing is sent.
 */
export async function holdCredits(db: Kysely<DB>, check: ClaimedCheck, now: Date): Promise<Hold> {
  const price = PER_ENGINE_CHECK[check.engine];
  return db.transaction().execute(async (tx) => {
    const workspace = await tx.selectFrom('workspaces').select(['credits_enforced', 'daily_ceiling_usd']).where('id', '=', check.workspaceId).forUpdate().executeTakeFirstOrThrow();
    const held = Number(
      (
        await sql<{ held: number | null }>`select sum(credits) as held from checks
          where workspace_id = ${check.workspaceId} and state = 'running' and claimed_until > ${now} and not (project_id = ${check.projectId} and id = ${check.id})`.execute(tx)
      ).rows[0]?.held ?? 0,
    );
    const today = await tx.selectFrom('credit_daily').select('consumed').where('workspace_id', '=', check.workspaceId).where('day', '=', utcDay(now)).executeTakeFirst();
    const spentUsd = roundCredits((today?.consumed ?? 0) + held + price) * USD_PER_CREDIT;
    if (spentUsd > workspace.daily_ceiling_usd + 1e-9) {
      return { skipped: 'quota_exceeded', message: `the daily spend ceiling of ${workspace.daily_ceiling_usd} USD is reached` } as const;
    }
    if (workspace.credits_enforced) {
      const period = await openCreditPeriod(tx, check.workspaceId, monthStart(now));
      const left = period ? roundCredits(available(period) - held) : 0;
      if (left < price) return { skipped: 'quota_exceeded', message: `not enough credits: ${price} needed, ${left} available` } as const;
    }
    const updated = await tx
      .updateTable('checks')
      .set({ credits: price })
      .where('project_id', '=', check.projectId)
      .where('id', '=', check.id)
      .where('claim', '=', check.claim)
      .where('state', '=', 'running')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) return { lost: true } as const;
    return { held: price };
  });
}
