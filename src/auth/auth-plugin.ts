import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { ForbiddenError, UnauthorizedError } from '../http/errors.ts';
import { findPrincipal, type Principal } from './find-principal.ts';
import { matchesScope, type Scope } from './scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key; set by the auth hook on every authenticated route. */
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** The scope a route needs. A route in the authenticated scope without one is refused. */
    scope?: Scope;
  }
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
    app.addHook('onRequest', async (request) => {
      const secret = bearerToken(request.headers.authorization);
      if (secret === undefined) {
        throw new UnauthorizedError('missing API key: send `Authorization: Bearer <API_KEY>`');
      }
      const principal = await findPrincipal(options.db, secret);
      if (!principal) throw new UnauthorizedError('unknown or revoked API key');
      if (!principal.apiAccess) {
        throw new ForbiddenError("this workspace's plan has no API access; upgrade the plan to use the API");
      }
      const required = request.routeOptions.config.scope;
      if (!matchesScope(principal.scopes, required)) {
        throw new ForbiddenError(`this key lacks the \`${required ?? 'unknown'}\` scope this endpoint needs`);
      }
      request.principal = principal;
    });
  },
  { name: 'sightline-auth' },
);

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
