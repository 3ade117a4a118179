import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { lockProject } from '../db/lock-project.ts';
import { recordRunsIn } from '../runs/record-runs.ts';
import { utcDay } from '../usage/calendar.ts';
import { recordLedgerEntry } from '../usage/record-ledger-entry.ts';
import type { ClaimedCheck } from './claim-checks.ts';
import { retrievedPages, runRecordOf, type CheckAnswer } from './run-record-of.ts';

/** How a claimed check ends, or is put back. */
export type CheckEnd =
  /** The provider answered (ok or no_answer): a run, charged. */
  | { kind: 'answered'; answer: CheckAnswer }
  /** The provider failed for good (not retryable, or out of attempts): a failed run, not charged. */
  | { kind: 'failed'; answer: CheckAnswer }
  /** Not sent (the workspace cannot pay): no run, nothing charged; a later `sample` may queue it again. */
  | { kind: 'skipped'; reason: string }
  /** A failure worth trying again: queued for `runAfter`, its held credits released. */
  | { kind: 'retry'; runAfter: Date; reason: string };

export type Finished = { recorded: true; outcome: 'ok' | 'no_answer' | 'failed' | 'skipped' | 'queued'; credits: number } | { recorded: false };

/**
 * Ends a check in one transaction, only if the worker still holds its claim (a worker whose lease
 * lapsed and was taken over records nothing: the check runs and is charged at most once). An
 * answered check's run is written through the one write path of runs (runs/record-runs.ts) and its
 * charge goes to the ledger against the run, in the same transaction.
 */
export async function finishCheck(db: Kysely<DB>, check: ClaimedCheck, end: CheckEnd, now: Date): Promise<Finished> {
  return db.transaction().execute(async (tx) => {
    await lockProject(tx, check.projectId);
    const row = await tx
      .selectFrom('checks')
      .select(['state', 'claim', 'credits'])
      .where('project_id', '=', check.projectId)
      .where('id', '=', check.id)
      .forUpdate()
      .executeTakeFirst();
    if (!row || row.state !== 'running' || row.claim !== check.claim) return { recorded: false } as const;
    const done = (outcome: 'ok' | 'no_answer' | 'failed' | 'skipped', reason: string | null, credits: number, runId: string | null) =>
      tx.updateTable('checks').set({ state: 'done', outcome, reason, credits, run_id: runId, finished_at: now, claim: null, claimed_until: null }).where('project_id', '=', check.projectId).where('id', '=', check.id).execute();

    if (end.kind === 'retry') {
      await tx
        .updateTable('checks')
        .set({ state: 'queued', run_after: end.runAfter, reason: end.reason, credits: 0, claim: null, claimed_until: null })
        .where('project_id', '=', check.projectId)
        .where('id', '=', check.id)
        .execute();
      return { recorded: true, outcome: 'queued', credits: 0 } as const;
    }
    if (end.kind === 'skipped') {
      await done('skipped', end.reason, 0, null);
      return { recorded: true, outcome: 'skipped', credits: 0 } as const;
    }
    const record = await runRecordOf(tx, check, end.answer, now);
    if (!record) {
      // The prompt is gone (removed and its checks dropped while this one ran): nothing to attach a run to.
      await done('skipped', 'the prompt was removed', 0, null);
      return { recorded: true, outcome: 'skipped', credits: 0 } as const;
    }
    await recordRunsIn(tx, check.projectId, [record]);
    const retrieved = retrievedPages(record.provenance?.sourceUrls ?? []);
    if (retrieved.length > 0) {
      await tx.updateTable('cited_urls').set({ retrieved: true }).where('project_id', '=', check.projectId).where('url', 'in', retrieved).where('retrieved', '=', false).execute();
    }
    const charged = end.kind === 'answered' ? row.credits : 0;
    if (charged > 0) await charge(tx, check, charged, now);
    await done(record.status, record.provenance?.reason ?? null, charged, check.id);
    return { recorded: true, outcome: record.status, credits: charged } as const;
  });
}

async function charge(tx: Transaction<DB>, check: ClaimedCheck, credits: number, now: Date): Promise<void> {
  await recordLedgerEntry(tx, { workspaceId: check.workspaceId, kind: 'consume', credits, day: utcDay(now), engineKey: check.engine, run: { projectId: check.projectId, runId: check.id } });
}
