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

/**
 * Several consumptions at once (a batch of answered checks): one insert of the entries and one
 * update of the daily rollup per workspace and day, in the caller's transaction.
 */
export async function recordConsumptions(
  tx: Transaction<DB>,
  entries: readonly { workspaceId: string; credits: number; day: string; engineKey: string; run: { projectId: string; runId: string } }[],
): Promise<void> {
  if (entries.length === 0) return;
  await tx
    .insertInto('credit_ledger')
    .values(
      entries.map((e) => ({
        id: randomUUID(),
        workspace_id: e.workspaceId,
        kind: 'consume' as const,
        credits: e.credits,
        action: null,
        engine_key: e.engineKey,
        note: null,
        day: e.day,
        run_project_id: e.run.projectId,
        run_id: e.run.runId,
      })),
    )
    .execute();
  const daily = new Map<string, { workspace_id: string; day: string; granted: number; consumed: number }>();
  for (const e of entries) {
    const key = `${e.workspaceId}|${e.day}`;
    const row = daily.get(key) ?? { workspace_id: e.workspaceId, day: e.day, granted: 0, consumed: 0 };
    row.consumed += e.credits;
    daily.set(key, row);
  }
  await tx
    .insertInto('credit_daily')
    .values([...daily.values()])
    .onConflict((oc) => oc.columns(['workspace_id', 'day']).doUpdateSet({ consumed: sql`credit_daily.consumed + excluded.consumed` }))
    .execute();
}
