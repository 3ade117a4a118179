import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';

/** Appends to the credit ledger and keeps the daily rollup in the same transaction. */
export async function recordLedgerEntry(
  tx: Transaction<DB>,
  entry: {
    workspaceId: string;
    kind: 'grant' | 'consume';
    credits: number;
    day: string;
    action?: string | null;
    engineKey?: string | null;
    note?: string | null;
    /** The run a check's charge paid for. */
    run?: { projectId: string; runId: string } | undefined;
  },
): Promise<void> {
  await tx
    .insertInto('credit_ledger')
    .values({
      id: randomUUID(),
      workspace_id: entry.workspaceId,
      kind: entry.kind,
      credits: entry.credits,
      action: entry.action ?? null,
      engine_key: entry.engineKey ?? null,
      note: entry.note ?? null,
      day: entry.day,
      run_project_id: entry.run?.projectId ?? null,
      run_id: entry.run?.runId ?? null,
    })
    .execute();
  const granted = entry.kind === 'grant' ? entry.credits : 0;
  const consumed = entry.kind === 'consume' ? entry.credits : 0;
  await tx
    .insertInto('credit_daily')
    .values({ workspace_id: entry.workspaceId, day: entry.day, granted, consumed })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'day']).doUpdateSet({
        granted: sql`credit_daily.granted + excluded.granted`,
        consumed: sql`credit_daily.consumed + excluded.consumed`,
      }),
    )
    .execute();
}
