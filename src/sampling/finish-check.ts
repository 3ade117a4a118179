import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { plainArray, textArray } from '../db/array-literal.ts';
import { lockProject } from '../db/lock-project.ts';
import type { RunRecord } from '../runs/parse-run-line.ts';
import { recordRunsIn } from '../runs/record-runs.ts';
import { utcDay } from '../usage/calendar.ts';
import { recordConsumptions } from '../usage/record-ledger-entry.ts';
import type { ClaimedCheck } from './claim-checks.ts';
import { readRecordLookups, retrievedPages, runRecordOf, storable, type CheckAnswer } from './run-record-of.ts';

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

/** One check's end, as finishChecks takes them. */
export interface Ending {
  check: ClaimedCheck;
  end: CheckEnd;
}

/** Ends one check (finishChecks with one). */
export async function finishCheck(db: Kysely<DB>, check: ClaimedCheck, end: CheckEnd, now: Date): Promise<Finished> {
  return (await finishChecks(db, check.projectId, [{ check, end }], now))[0]!;
}

/**
 * Ends checks of one project together, in one transaction under the project lock, each only if
 * its worker still holds its claim (a worker whose lease lapsed and was taken over records nothing:
 * a check runs and is charged at most once). Answered and failed checks' runs are written together
 * through the one write path of runs (runs/record-runs.ts); the answered ones' charges go to the
 * ledger against their runs; retried checks are queued again with their credits released; every
 * check's row is updated in one statement. A batch costs about as many statements as one check.
 */
export async function finishChecks(db: Kysely<DB>, projectId: string, endings: readonly Ending[], now: Date): Promise<Finished[]> {
  if (endings.length === 0) return [];
  return db.transaction().execute(async (tx) => {
    await lockProject(tx, projectId);
    const held = (
      await sql<{ id: string; state: string; claim: string | null; credits: number }>`
        select id, state, claim, credits from checks
        where project_id = ${projectId}::uuid and id = any(${plainArray(endings.map((e) => e.check.id))}::uuid[]) for update`.execute(tx)
    ).rows;
    const rows = new Map(held.map((r) => [r.id, r]));
    const mine = endings.filter(({ check }) => {
      const row = rows.get(check.id);
      return row !== undefined && row.state === 'running' && row.claim === check.claim;
    });

    const answered = mine.filter((e): e is Ending & { end: { kind: 'answered' | 'failed'; answer: CheckAnswer } } => e.end.kind === 'answered' || e.end.kind === 'failed');
    const lookups = await readRecordLookups(tx, projectId, answered.map((e) => ({ check: e.check, answer: e.end.answer })));
    const records = new Map<string, RunRecord | undefined>(answered.map((e) => [e.check.id, runRecordOf(e.check, e.end.answer, now, lookups)]));
    const runs = [...records.values()].filter((r): r is RunRecord => r !== undefined);
    if (runs.length > 0) await recordRunsIn(tx, projectId, runs);
    const retrieved = retrievedPages(runs.flatMap((r) => r.provenance?.sourceUrls ?? []));
    if (retrieved.length > 0) {
      await tx.updateTable('cited_urls').set({ retrieved: true }).where('project_id', '=', projectId).where('url', 'in', retrieved).where('retrieved', '=', false).execute();
    }

    // What each check became, its charge, and its row's new state.
    const finished = new Map<string, Finished>();
    const updates: { id: string; state: 'queued' | 'done'; outcome: string | null; reason: string | null; credits: number; runId: string | null; runAfter: Date | null }[] = [];
    const charges: Parameters<typeof recordConsumptions>[1][number][] = [];
    for (const { check, end } of mine) {
      if (end.kind === 'retry') {
        updates.push({ id: check.id, state: 'queued', outcome: null, reason: end.reason, credits: 0, runId: null, runAfter: end.runAfter });
        finished.set(check.id, { recorded: true, outcome: 'queued', credits: 0 });
        continue;
      }
      const record = end.kind === 'skipped' ? undefined : records.get(check.id);
      if (!record) {
        const reason = end.kind === 'skipped' ? end.reason : 'the prompt was removed';
        updates.push({ id: check.id, state: 'done', outcome: 'skipped', reason, credits: 0, runId: null, runAfter: null });
        finished.set(check.id, { recorded: true, outcome: 'skipped', credits: 0 });
        continue;
      }
      const credits = end.kind === 'answered' ? rows.get(check.id)!.credits : 0;
      if (credits > 0) charges.push({ workspaceId: check.workspaceId, credits, day: utcDay(now), engineKey: check.engine, run: { projectId, runId: check.id } });
      updates.push({ id: check.id, state: 'done', outcome: record.status, reason: record.provenance?.reason ?? null, credits, runId: check.id, runAfter: null });
      finished.set(check.id, { recorded: true, outcome: record.status, credits });
    }
    await recordConsumptions(tx, charges);
    if (updates.length > 0) {
      await sql`update checks c set state = u.state, outcome = u.outcome, reason = u.reason, credits = u.credits, run_id = u.run_id,
          run_after = coalesce(u.run_after, c.run_after), finished_at = case when u.state = 'done' then ${now}::timestamptz else null end,
          claim = null, claimed_until = null
        from unnest(${plainArray(updates.map((u) => u.id))}::uuid[], ${textArray(updates.map((u) => u.state))}::text[], ${textArray(updates.map((u) => u.outcome))}::text[],
                    ${textArray(updates.map((u) => (u.reason === null ? null : storable(u.reason, 1_000))))}::text[], ${plainArray(updates.map((u) => u.credits))}::float8[], ${plainArray(updates.map((u) => u.runId))}::uuid[],
                    ${textArray(updates.map((u) => u.runAfter?.toISOString() ?? null))}::timestamptz[])
          as u(id, state, outcome, reason, credits, run_id, run_after)
        where c.project_id = ${projectId}::uuid and c.id = u.id`.execute(tx);
    }
    return endings.map(({ check }) => finished.get(check.id) ?? { recorded: false });
  });
}
