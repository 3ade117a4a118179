import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';

export interface ApiKeySummary {
  id: string;
  name: string | null;
  /** The visible start of the secret; the secret itself is never shown again. */
  prefix: string;
  scopes: string[];
  /** Set for a project-scoped key. */
  projectId: string | null;
  rateLimit: number | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A workspace's keys, newest first, revoked ones included; never a secret or its hash. */
export async function listApiKeys(db: Kysely<DB>, workspaceId: string): Promise<ApiKeySummary[]> {
  const workspace = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
  if (!workspace) throw new NotFoundError(`no workspace ${workspaceId}`);
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'scopes', 'project_id', 'rate_limit', 'created_at', 'last_used_at', 'revoked_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
  return rows.map((k) => ({
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    projectId: k.project_id,
    rateLimit: k.rate_limit,
    createdAt: k.created_at.toISOString(),
    lastUsedAt: k.last_used_at?.toISOString() ?? null,
    revokedAt: k.revoked_at?.toISOString() ?? null,
  }));
}
