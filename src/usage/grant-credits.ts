import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { BadRequestError, NotFoundError } from '../http/errors.ts';
import { utcDay } from './calendar.ts';
import { recordLedgerEntry } from './record-ledger-entry.ts';

/** Adds credits to the workspace's current period (`granted`). */
export async function grantCredits(
  db: Kysely<DB>,
  workspaceId: string,
  credits: number,
  note: string | undefined,
  now: Date,
): Promise<{ workspaceId: string; credits: number }> {
  if (!Number.isFinite(credits) || credits <= 0 || Math.round(credits * 10_000) !== credits * 10_000 || credits > 1e9) {
    throw new BadRequestError('credits must be a positive number with at most four decimals', {
      credits: 'must be a positive number with at most four decimals',
    });
  }
  await db.transaction().execute(async (tx) => {
    const workspace = await tx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forUpdate().executeTakeFirst();
    if (!workspace) throw new NotFoundError(`no workspace ${workspaceId}`);
    await recordLedgerEntry(tx, { workspaceId, kind: 'grant', credits, day: utcDay(now), note: note ?? null });
  });
  return { workspaceId, credits };
}
