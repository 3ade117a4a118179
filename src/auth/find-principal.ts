import { sql, type Kysely } from 'kysely';
import type { DB, ProjectRow } from '../db/types.ts';
import { NIL_UUID } from '../runs/rollup-cube.ts';
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
  /** The workspace's data version (what it lists moved with it). */
  workspaceVersion: number;
}

/**
 * The active key behind a secret, or undefined for an unknown or revoked one. Read from the
 * database on every request, so a revocation or a plan change is seen at once by every instance.
 */
export async function findPrincipal(db: Kysely<DB>, secret: string): Promise<Principal | undefined> {
  return (await findCaller(db, secret))?.principal;
}

/**
 * The caller and, when the request names one, the project it asks for as this key may see it (null:
 * unknown, another workspace's, or another project for a project-scoped key; ids cannot be
 * probed): one round trip for what every project read needs before its data.
 */
export async function findCaller(
  db: Kysely<DB>,
  secret: string,
  projectId?: string,
): Promise<{ principal: Principal; project: ProjectRow | null } | undefined> {
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
    .leftJoin('projects as p', (join) =>
      join
        .on('p.id', '=', projectId ?? NIL_UUID)
        .onRef('p.workspace_id', '=', 'k.workspace_id')
        .on((eb) => eb.or([eb('k.project_id', 'is', null), eb('k.project_id', '=', eb.ref('p.id'))])),
    )
    .select([
      'k.id',
      'k.workspace_id',
      'k.project_id',
      'k.scopes',
      'k.rate_limit',
      'w.plan',
      'w.api_access',
      'w.data_version as w_data_version',
      'p.id as p_id',
      'p.name as p_name',
      'p.domain as p_domain',
      'p.color as p_color',
      'p.aliases as p_aliases',
      'p.created_at as p_created_at',
      'p.data_version as p_data_version',
    ])
    .where('k.secret_hash', '=', hashSecret(secret))
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const principal = {
    keyId: row.id,
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    scopes: row.scopes,
    rateLimit: row.rate_limit,
    apiAccess: hasApiAccess(row),
    workspaceVersion: Number(row.w_data_version),
  };
  const project: ProjectRow | null =
    row.p_id === null
      ? null
      : {
          id: row.p_id,
          workspace_id: row.workspace_id,
          name: row.p_name!,
          domain: row.p_domain!,
          color: row.p_color,
          aliases: row.p_aliases!,
          created_at: row.p_created_at!,
          data_version: Number(row.p_data_version),
        };
  return { principal, project };
}
