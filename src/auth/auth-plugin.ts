import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import { bearerToken, usesBearer } from './bearer.ts';
import type { DB, ProjectRow } from '../db/types.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../http/errors.ts';
import { findCaller, findSessionCaller, type Principal } from './find-principal.ts';
import { matchesScope, type Scope } from './scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key; set by the auth hook on every authenticated route. */
    principal: Principal | null;
    /**
     * On a route whose config names its project parameter: the project, as the key may see it
     * (null: not visible), looked up with the key in one round trip.
     */
    visibleProject: ProjectRow | null | undefined;
  }
  interface FastifyContextConfig {
    /** The scope a route needs. A route in the authenticated scope without one is refused. */
    scope?: Scope;
    /** Instead of `scope`: any of these will do (the MCP endpoint: `mcp` or `mcp:write`). */
    anyScope?: readonly Scope[];
    /** The path parameter holding the project id, for routes about one project. */
    projectParam?: string;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The project a project route is about, as the key may see it, or 404. Another workspace's
 * project, and for a project-scoped key any other project, answer exactly as an unknown id does.
 */
export function projectOf(request: FastifyRequest): ProjectRow {
  const project = request.visibleProject;
  if (project === undefined) throw new Error(`route ${request.routeOptions.url} does not name its project parameter (config.projectParam)`);
  if (project === null) throw new NotFoundError(`no project ${(request.params as Record<string, string>)[request.routeOptions.config.projectParam!]}`);
  return project;
}

/** The caller, on a route behind the auth hook. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new UnauthorizedError('an API key is required');
  return request.principal;
}

/**
 * Authenticates every route registered in the same scope after it: bearer key, then plan access,
 * then the route's scope. 401 before 403, so a stranger learns nothing about scopes.
 */
export const authPlugin = fp(
  async (app: FastifyInstance, options: { db: Kysely<DB> }) => {
    app.decorateRequest('principal', null);
    app.decorateRequest('visibleProject', undefined);
    app.addHook('onRequest', async (request) => {
      const secret = bearerToken(request.headers.authorization);
      const param = request.routeOptions.config.projectParam;
      const wanted = param ? (request.params as Record<string, string | undefined>)[param] : undefined;
      if (secret === undefined && request.session && request.routeOptions.config.scope === 'read' && !usesBearer(request.headers.authorization)) {
        // The app reads the public API as its first client, signed in: a member reads its workspace.
        const caller = await findSessionCaller(options.db, request.session, wanted !== undefined && UUID.test(wanted) ? wanted.toLowerCase() : undefined);
        request.principal = caller.principal;
        request.visibleProject = wanted !== undefined && UUID.test(wanted) ? caller.project : undefined;
        return;
      }
      if (secret === undefined) {
        throw new UnauthorizedError('missing API key: send `Authorization: Bearer <API_KEY>`');
      }
      const caller = await findCaller(options.db, secret, wanted !== undefined && UUID.test(wanted) ? wanted.toLowerCase() : undefined);
      if (!caller) throw new UnauthorizedError('unknown or revoked API key');
      const { principal } = caller;
      if (!principal.apiAccess) {
        throw new ForbiddenError("this workspace's plan has no API access; upgrade the plan to use the API");
      }
      const { scope: required, anyScope } = request.routeOptions.config;
      if (anyScope ? !anyScope.some((s) => matchesScope(principal.scopes, s)) : !matchesScope(principal.scopes, required)) {
        throw new ForbiddenError(`this key lacks the \`${anyScope ? anyScope.join('` or `') : (required ?? 'unknown')}\` scope this endpoint needs`);
      }
      request.principal = principal;
      request.visibleProject = wanted !== undefined && UUID.test(wanted) ? caller.project : undefined;
    });
  },
  { name: 'sightline-auth' },
);
