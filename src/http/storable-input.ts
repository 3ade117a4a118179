import type { FastifyInstance, FastifyRequest } from 'fastify';
import { BadRequestError } from './errors.ts';

/**
 * Refuses (400, the offending fields named, 20 at most) what passes the route schemas but cannot be stored or
 * computed with: a NUL character (U+0000) in a string, which PostgreSQL's text never holds, and a
 * number that is not finite (`1e999` in a query string or a JSON body is Infinity, which the
 * schema validator's minimum and maximum let through). Checked after validation, on the values
 * the handler would get: path parameters, the query string and a parsed JSON body. A raw body (a
 * run file, a beacon) is read line by line by its own parser.
 */
export function refuseUnstorableInput(app: FastifyInstance): void {
  app.addHook('preHandler', async (request: FastifyRequest) => {
    // The MCP endpoint answers in JSON-RPC, its tools check their arguments (mcp-server.ts); the
    // beacon takes page addresses as web logs are taken, a NUL replaced (traffic/clean-text.ts).
    if (request.routeOptions.config.ownInputChecks) return;
    const details: Record<string, string> = {};
    for (const part of [request.params, request.query, request.body]) {
      if (part !== null && typeof part === 'object' && !Buffer.isBuffer(part)) inspect(part, details);
    }
    const fields = Object.keys(details);
    if (fields.length > 0) throw new BadRequestError(`${fields.join(', ')}: ${details[fields[0]!]}`, details);
  });
}

/** The fields of `value` that cannot be stored or computed with, and why (empty when none). */
export function unstorableFields(value: object): Record<string, string> {
  const details: Record<string, string> = {};
  inspect(value, details);
  return details;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route checks its input for what cannot be stored itself (refuseUnstorableInput skips it). */
    ownInputChecks?: boolean;
  }
}

/** Fields named in one refusal at most: enough to fix a request, never a cost of its own. */
const MAX_NAMED = 20;

interface Place {
  key: string;
  parent: Place | undefined;
}

/**
 * Walks every value iteratively, each place a link to its parent: a body nested half a million
 * deep is walked in linear time, never a stack overflow, and a field's name is spelled only for
 * what is refused.
 */
function inspect(root: object, details: Record<string, string>): void {
  let named = Object.keys(details).length;
  const refuse = (place: Place | undefined, why: string) => {
    details[field(place)] = why;
    named++;
  };
  const stack: [unknown, Place | undefined][] = [[root, undefined]];
  while (stack.length > 0 && named < MAX_NAMED) {
    const [value, place] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) refuse(place, 'must not contain a NUL character (U+0000)');
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) refuse(place, 'must be a finite number');
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) refuse({ key, parent: place }, 'must not contain a NUL character (U+0000) in its name');
        else stack.push([item, { key, parent: place }]);
      }
    }
  }
}

function field(place: Place | undefined): string {
  const path: string[] = [];
  for (let at = place; at; at = at.parent) path.unshift(at.key);
  return path.join('.').replaceAll('\u0000', '\\u0000') || 'request';
}
