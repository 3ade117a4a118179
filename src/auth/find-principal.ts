import type { Kysely } from 'kysely';
import { preparedStatement, runPrepared } from '../db/prepared.ts';
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

interface CallerRow {
  id: string;
  workspace_id: string;
  project_id: string | null;
  scopes: string[];
  rate_limit: number | null;
  stale: boolean;
  plan: string;
  api_access: boolean | null;
  w_data_version: string;
  p_id: string | null;
  p_name: string | null;
  p_domain: string | null;
  p_color: string | null;
  p_aliases: string[] | null;
  p_created_at: Date | null;
  p_data_version: string | null;
}

/** Every request's statement: written out and prepared (db/prepared.ts), not built and planned each time. */
const FIND_CALLER = preparedStatement(
  'find_caller',
  `select k.id, k.workspace_id, k.project_id, k.scopes, k.rate_limit,
     (k.last_used_at is null or k.last_used_at < now() - interval '1 minute') as stale,
     w.plan, w.api_access, w.data_version as w_data_version,
     p.id as p_id, p.name as p_name, p.domain as p_domain, p.color as p_color, p.aliases as p_aliases,
     p.created_at as p_created_at, p.data_version as p_data_version
   from api_keys k
   join workspaces w on w.id = k.workspace_id
   left join projects p on p.id = $2 and p.workspace_id = k.workspace_id and (k.project_id is null or k.project_id = p.id)
   where k.secret_hash = $1 and k.revoked_at is null`,
);

const TOUCH_KEY = preparedStatement(
  'touch_key',
  `update api_keys set last_used_at = now()
   where id = $1 and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
);

/**
 * The caller and, when the request names one, the project it asks for as this key may see it (null:
 * unknown, another workspace's, or another project for a project-scoped key; ids cannot be
 * probed): one round trip for what every project read needs before its data (two, once a minute,
 * when the key's last use is recorded).
 */
export async function findCaller(
  db: Kysely<DB>,
  secret: string,
  projectId?: string,
): Promise<{ principal: Principal; project: ProjectRow | null } | undefined> {
  if (!looksLikeSecret(secret)) return undefined;
  const hash = hashSecret(secret);
  const row = (await runPrepared<CallerRow>(db, FIND_CALLER, [hash, projectId ?? NIL_UUID])).rows[0];
  if (!row) return undefined;
  // Its last use, at most once a minute (so reads do not become writes).
  if (row.stale) await runPrepared(db, TOUCH_KEY, [row.id]);
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

/** Requests a minute for a signed-in person reading through the app (a page makes several). */
export const SESSION_RATE_LIMIT = 600;

/**
 * A signed-in member as a caller of the read endpoints: their session's workspace, read scope,
 * and the project asked for if it is the workspace's. The app is every plan's, API access or not.
 */
export async function findSessionCaller(db: Kysely<DB>, session: { userId: string; workspaceId: string }, projectId: string | undefined): Promise<{ principal: Principal; project: ProjectRow | null }> {
  const workspace = await db.selectFrom('workspaces').select('data_version').where('id', '=', session.workspaceId).executeTakeFirstOrThrow();
  const project = projectId === undefined ? undefined : await db.selectFrom('projects').selectAll().where('id', '=', projectId).where('workspace_id', '=', session.workspaceId).executeTakeFirst();
  return {
    principal: {
      keyId: `session:${session.userId}`,
      workspaceId: session.workspaceId,
      projectId: null,
      scopes: ['read'],
      rateLimit: SESSION_RATE_LIMIT,
      apiAccess: true,
      workspaceVersion: Number(workspace.data_version),
    },
    project: project ? { ...project, data_version: Number(project.data_version) } : null,
  };
}
