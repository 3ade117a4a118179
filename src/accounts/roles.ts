/** What a member of a workspace may do there: owners change its settings, viewers read. */
export type Role = 'owner' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'viewer'];
