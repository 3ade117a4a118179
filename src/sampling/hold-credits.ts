import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { plainArray } from '../db/array-literal.ts';
import { monthStart, utcDay } from '../usage/calendar.ts';
import { available, openCreditPeriod, roundCredits } from '../usage/open-credit-period.ts';
import { PER_ENGINE_CHECK, USD_PER_CREDIT } from '../usage/pricing.ts';
import type { ClaimedCheck } from './claim-checks.ts';

/** Held, skipped (nothing sent), or lost: the claim lapsed and another worker owns the check now. */
export type Hold = { held: number } | { skipped: 'quota_exceeded'; message: string } | { lost: true };

/**
 * Before anything is sent to a provider: can the workspaces pay for these checks? The credits of the
 * checks in flight are held (`checks.credits` while running), so concurrent checks cannot overdraw
 * together; the held credits are charged when a check is answered and released when it fails.
 * Under each workspace's row lock, in the checks' order: today's spend, the held credits and this
 * check must stay within the daily ceiling (always); with credits enforced, the balance less the held
 * credits must pay for it. Otherwise the check is skipped (`quota_exceeded`) and nothing is sent.
 * One transaction for a batch of claimed checks.
 */
export async function holdCredits(db: Kysely<DB>, checks: readonly ClaimedCheck[], now: Date): Promise<Hold[]> {
  if (checks.length === 0) return [];
  return db.transaction().execute(async (tx) => {
    const workspaceIds = [...new Set(checks.map((c) => c.workspaceId))].sort();
    const workspaces = await tx.selectFrom('workspaces').select(['id', 'credits_enforced', 'daily_ceiling_usd']).where('id', 'in', workspaceIds).orderBy('id').forUpdate().execute();
    const mine = plainArray(checks.map((c) => c.id));
    const heldRows = (
      await sql<{ workspace_id: string; held: number }>`select workspace_id, sum(credits)::float8 as held from checks
        where workspace_id = any(${plainArray(workspaceIds)}::uuid[]) and state = 'running' and claimed_until > ${now} and not (id = any(${mine}::uuid[]))
        group by workspace_id`.execute(tx)
    ).rows;
    const spentRows = await tx.selectFrom('credit_daily').select(['workspace_id', 'consumed']).where('workspace_id', 'in', workspaceIds).where('day', '=', utcDay(now)).execute();
    const held = new Map(heldRows.map((r) => [r.workspace_id, Number(r.held)]));
    const spent = new Map(spentRows.map((r) => [r.workspace_id, r.consumed]));
    const left = new Map<string, number>();
    for (const w of workspaces) {
      if (!w.credits_enforced) continue;
      const period = await openCreditPeriod(tx, w.id, monthStart(now));
      left.set(w.id, period ? available(period) : 0);
    }
    const byId = new Map(workspaces.map((w) => [w.id, w]));
    const holds: Hold[] = [];
    for (const check of checks) {
      const w = byId.get(check.workspaceId)!;
      const price = PER_ENGINE_CHECK[check.engine];
      const holding = held.get(w.id) ?? 0;
      if (roundCredits((spent.get(w.id) ?? 0) + holding + price) * USD_PER_CREDIT > w.daily_ceiling_usd + 1e-9) {
        holds.push({ skipped: 'quota_exceeded', message: `the daily spend ceiling of ${w.daily_ceiling_usd} USD is reached` });
        continue;
      }
      if (w.credits_enforced && roundCredits((left.get(w.id) ?? 0) - holding) < price) {
        holds.push({ skipped: 'quota_exceeded', message: `not enough credits: ${price} needed, ${roundCredits((left.get(w.id) ?? 0) - holding)} available` });
        continue;
      }
      held.set(w.id, holding + price);
      holds.push({ held: price });
    }
    const toHold = checks.map((c, i) => ({ c, h: holds[i]! })).filter((x) => 'held' in x.h);
    if (toHold.length > 0) {
      const updated = await sql<{ id: string }>`update checks c set credits = t.credits
        from unnest(${plainArray(toHold.map((x) => x.c.projectId))}::uuid[], ${plainArray(toHold.map((x) => x.c.id))}::uuid[], ${plainArray(toHold.map((x) => x.c.claim))}::uuid[],
                    ${plainArray(toHold.map((x) => (x.h as { held: number }).held))}::float8[]) as t(project_id, id, claim, credits)
        where c.project_id = t.project_id and c.id = t.id and c.claim = t.claim and c.state = 'running'
        returning c.id`.execute(tx);
      const got = new Set(updated.rows.map((r) => r.id));
      for (const x of toHold) if (!got.has(x.c.id)) holds[checks.indexOf(x.c)] = { lost: true };
    }
    return holds;
  });
}
