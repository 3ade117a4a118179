import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { BadRequestError, NotFoundError } from '../http/errors.ts';
import { utcDay } from './calendar.ts';
import { recordLedgerEntry } from './record-ledger-entry.ts';

/** The most credits granted to one workspace in one UTC day (one grant's limit too). */
export const MAX_GRANTED_A_DAY = 1e9;

/** Adds credits to the workspace's current period (`granted`). */
export async function grantCredits(
  db: Kysely<DB>,
  workspaceId: string,
  credits: number,
  note: string | undefined,
  now: Date,
): Promise<{ workspaceId: string; credits: number }> {
  if (!Number.isFinite(credits) || credits <= 0 || Math.round(credits * 10_000) !== credits * 10_000 || credits > MAX_GRANTED_A_DAY) {
    throw new BadRequestError('credits must be a positive number with at most four decimals', {
      credits: 'must be a positive number with at most four decimals',
    });
  }
  await db.transaction().execute(async (tx) => {
    const workspace = await tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().executeTakeFirst();
    if (!workspace) throw new NotFoundError(`no workspace ${workspaceId}`);
    // The day's grants stay within what one grant may be (and what the daily rollup holds).
    const today = await tx.selectFrom('credit_daily').select('granted').where('workspace_id', '=', workspaceId).where('day', '=', utcDay(now)).executeTakeFirst();
    if (Number(today?.granted ?? 0) + credits > MAX_GRANTED_A_DAY) {
      throw new BadRequestError(`at most ${MAX_GRANTED_A_DAY.toLocaleString('en')} credits are granted to a workspace a day`, { credits: `today's grants would pass ${MAX_GRANTED_A_DAY}` });
    }
    await recordLedgerEntry(tx, { workspaceId, kind: 'grant', credits, day: utcDay(now), note: note ?? null });
  });
  return { workspaceId, credits };
}
