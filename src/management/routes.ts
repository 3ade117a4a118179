import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { strictBodies } from '../http/strict-bodies.ts';
import type { Outbound } from '../outbound/outbound.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import { projectManagementRoutes } from './project-routes.ts';
import { workManagementRoutes, type WorkDeps } from './work-routes.ts';
import { workspaceManagementRoutes } from './workspace-routes.ts';

export interface ManagementDeps extends Omit<WorkDeps, 'db'> {
  db: Kysely<DB>;
  now: () => Date;
  configuredEngines: readonly EngineKey[];
  /** The guarded client webhooks are checked with (the same one that delivers them). */
  webhookOutbound: Outbound;
}

/**
 * The management API of the app (operations.md section 8): what the CLI does, for the signed-in
 * members of a workspace, through the same domain operations and their validation. Reads for every
 * member, changes for owners, each change with the session's CSRF token (accounts/routes.ts).
 * Everything is the session's workspace's: another workspace's ids answer 404, as unknown ones do.
 */
export async function managementRoutes(app: FastifyInstance, deps: ManagementDeps): Promise<void> {
  strictBodies(app);
  await app.register(workspaceManagementRoutes, deps);
  await app.register(projectManagementRoutes, deps);
  await app.register(workManagementRoutes, deps);
}
