import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

export interface WorkspaceSummary {
  id: string;
  name: string;
  plan: string;
  /** null: the plan decides. */
  apiAccess: boolean | null;
  creditsEnforced: boolean;
  dailyCeilingUsd: number;
  createdAt: string;
}

/** Every workspace, oldest first. */
export async function listWorkspaces(db: Kysely<DB>): Promise<WorkspaceSummary[]> {
  const rows = await db.selectFrom('workspaces').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map((w) => ({
    id: w.id,
    name: w.name,
    plan: w.plan,
    apiAccess: w.api_access,
    creditsEnforced: w.credits_enforced,
    dailyCeilingUsd: Number(w.daily_ceiling_usd),
    createdAt: w.created_at.toISOString(),
  }));
}
