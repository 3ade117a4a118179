/**
 * Plans (operations.md section 5): `free` has no API access; the others do. Each has a monthly
 * credit allowance. A workspace may override API access either way (`--api-access`).
 */
export const PLANS = {
  free: { apiAccess: false, monthlyCredits: 100 },
  starter: { apiAccess: true, monthlyCredits: 2_000 },
  growth: { apiAccess: true, monthlyCredits: 10_000 },
  enterprise: { apiAccess: true, monthlyCredits: 50_000 },
} as const;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as Plan[];
export const DEFAULT_PLAN: Plan = 'starter';

export function isPlan(value: string): value is Plan {
  return Object.hasOwn(PLANS, value);
}

/** A plan unknown to this release (renamed, say) has no API access and no allowance: deny by default. */
export function planOf(name: string): { apiAccess: boolean; monthlyCredits: number } {
  return isPlan(name) ? PLANS[name] : { apiAccess: false, monthlyCredits: 0 };
}

export function hasApiAccess(workspace: { plan: string; api_access: boolean | null }): boolean {
  return workspace.api_access ?? planOf(workspace.plan).apiAccess;
}
