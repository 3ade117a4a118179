import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { hasApiAccess } from '../workspaces/plans.ts';
import { hashSecret, looksLikeSecret } from './secrets.ts';

/** Who is calling: the key and what it may reach. */
export interface Principal {
  keyId: string;
  workspaceId: string;
  /** Set for a project-scoped key: it reaches this project and no other. */
  projectId: string | null;
  scopes: string[];
  /** Requests per minute; null means the default. */
  rateLimit: number | null;
  apiAccess: boolean;
}

/**
 * The active key behind a secret, or undefined for an unknown or revoked one. Read from the
 * database on every request, so a revocation or a plan change is seen at once by every instance.
 */
export async function findPrincipal(db: Kysely<DB>, secret: string): Promise<Principal | undefined> {
  if (!looksLikeSecret(secret)) return undefined;
  // One round trip: the key, and (at most once a minute, so reads do not become writes) its last use.
  const row = await db
    .with('touch', (qc) =>
      qc
        .updateTable('api_keys')
        .set({ last_used_at: sql`now()` })
        .where('secret_hash', '=', hashSecret(secret))
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)])),
    )
    .selectFrom('api_keys as k')
    .innerJoin('workspaces as w', 'w.id', 'k.workspace_id')
    .select(['k.id', 'k.workspace_id', 'k.project_id', 'k.scopes', 'k.rate_limit', 'w.plan', 'w.api_access'])
    .where('k.secret_hash', '=', hashSecret(secret))
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    keyId: row.id,
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    scopes: row.scopes,
    rateLimit: row.rate_limit,
    apiAccess: hasApiAccess(row),
  };
}
