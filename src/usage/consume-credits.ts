import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { AppError, NotFoundError } from '../http/errors.ts';
import { monthStart, utcDay } from './calendar.ts';
import { available, openCreditPeriod } from './open-credit-period.ts';
import { recordLedgerEntry } from './record-ledger-entry.ts';
import { PER_ACTION, PER_ENGINE_CHECK, USD_PER_CREDIT, type BillableAction, type EngineKey } from './pricing.ts';

export type Work = { engineCheck: EngineKey } | { action: BillableAction };

/**
 * Charges the workspace for work the service does itself (an engine check, a billable action).
 * Two limits, both checked under a row lock so concurrent charges cannot overdraw:
 * - the daily spend ceiling (USD, per UTC day), always;
 * - the credit balance, only when the workspace's credits are enforced; otherwise the balance may
 *   go negative and is only measured.
 * Imported runs are never charged.
 */
export async function consumeCredits(db: Kysely<DB>, workspaceId: string, work: Work, now: Date): Promise<{ credits: number }> {
  const credits = 'engineCheck' in work ? PER_ENGINE_CHECK[work.engineCheck] : PER_ACTION[work.action];
  return db.transaction().execute(async (tx) => {
    const workspace = await tx
      .selectFrom('workspaces')
      .select(['credits_enforced', 'daily_ceiling_usd'])
      .where('id', '=', workspaceId)
      .forUpdate()
      .executeTakeFirst();
    if (!workspace) throw new NotFoundError(`no workspace ${workspaceId}`);
    const day = utcDay(now);
    const today = await tx
      .selectFrom('credit_daily')
      .select('consumed')
      .where('workspace_id', '=', workspaceId)
      .where('day', '=', day)
      .executeTakeFirst();
    const spentUsd = ((today?.consumed ?? 0) + credits) * USD_PER_CREDIT;
    if (spentUsd > workspace.daily_ceiling_usd + 1e-9) {
      throw new AppError('quota_exceeded', `the daily spend ceiling of ${workspace.daily_ceiling_usd} USD is reached`);
    }
    if (workspace.credits_enforced) {
      const period = await openCreditPeriod(tx, workspaceId, monthStart(now));
      if (!period || available(period) < credits) {
        throw new AppError('quota_exceeded', `not enough credits: ${credits} needed, ${period ? available(period) : 0} available`);
      }
    }
    await recordLedgerEntry(tx, {
      workspaceId,
      kind: 'consume',
      credits,
      day,
      action: 'action' in work ? work.action : null,
      engineKey: 'engineCheck' in work ? work.engineCheck : null,
    });
    return { credits };
  });
}
