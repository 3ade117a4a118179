import type { Kysely } from 'kysely';
import type { DB, WorkspaceUpdate } from '../db/types.ts';
import { BadRequestError, NotFoundError } from '../http/errors.ts';
import { PLAN_NAMES, isPlan } from './plans.ts';

export interface WorkspaceChanges {
  plan?: string | undefined;
  /** null: back to what the plan has. */
  apiAccess?: boolean | null | undefined;
  creditsEnforced?: boolean | undefined;
  dailyCeilingUsd?: number | undefined;
}

/** Changes take effect on the next request to any instance: auth reads them every time. */
export async function updateWorkspace(db: Kysely<DB>, id: string, changes: WorkspaceChanges): Promise<{ id: string }> {
  const set: WorkspaceUpdate = {};
  if (changes.plan !== undefined) {
    if (!isPlan(changes.plan)) {
      throw new BadRequestError(`plan "${changes.plan}" is not one of ${PLAN_NAMES.join(', ')}`, {
        plan: `must be one of ${PLAN_NAMES.join(', ')}`,
      });
    }
    set.plan = changes.plan;
  }
  if (changes.apiAccess !== undefined) set.api_access = changes.apiAccess;
  if (changes.creditsEnforced !== undefined) set.credits_enforced = changes.creditsEnforced;
  if (changes.dailyCeilingUsd !== undefined) {
    const ceiling = changes.dailyCeilingUsd;
    if (!Number.isFinite(ceiling) || ceiling < 0 || ceiling > 1e9 || Math.round(ceiling * 100) !== ceiling * 100) {
      throw new BadRequestError('the daily ceiling must be a non-negative amount of USD with at most two decimals', {
        dailyCeilingUsd: 'must be a non-negative amount with at most two decimals',
      });
    }
    set.daily_ceiling_usd = ceiling;
  }
  if (Object.keys(set).length === 0) {
    throw new BadRequestError('nothing to change: give a plan, API access, credits enforcement or a daily ceiling (--plan, --api-access, --credits-enforced, --daily-ceiling-usd)');
  }
  const result = await db.updateTable('workspaces').set(set).where('id', '=', id).executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw new NotFoundError(`no workspace ${id}`);
  return { id };
}

export interface WorkspaceControls {
  id: string;
  plan: string;
  /** null: the plan decides. */
  apiAccess: boolean | null;
  creditsEnforced: boolean;
  dailyCeilingUsd: number;
}

/** What `workspace update` reports: the workspace's plan and controls as they now are. */
export async function workspaceControls(db: Kysely<DB>, id: string): Promise<WorkspaceControls> {
  const w = await db.selectFrom('workspaces').select(['plan', 'api_access', 'credits_enforced', 'daily_ceiling_usd']).where('id', '=', id).executeTakeFirst();
  if (!w) throw new NotFoundError(`no workspace ${id}`);
  return { id, plan: w.plan, apiAccess: w.api_access, creditsEnforced: w.credits_enforced, dailyCeilingUsd: Number(w.daily_ceiling_usd) };
}
