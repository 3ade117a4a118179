import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { varyByCoding } from './compress-json.ts';
import type { ResponseCache } from './response-cache.ts';

/**
 * Answers a read from the cache when it can: `key` names everything the body depends on (its
 * data version included), so its hash is the body's (weak) ETag. A client holding it (`If-None-Match`)
 * gets 304 at once (`*` once there is a body); a body computed before is sent as it was; else `compute` runs and its result,
 * serialized by the route's own response schema (so fields outside it never leave), is kept.
 */
export async function cachedReply(request: FastifyRequest, reply: FastifyReply, cache: ResponseCache, key: string, compute: () => Promise<unknown>): Promise<FastifyReply> {
  const tag = `"${createHash('sha256').update(key).digest('base64url').slice(0, 32)}"`;
  // Weak, and varying by coding, on the 200 and the 304 alike: the body may go compressed or not
  // (compress-json.ts), the same numbers either way.
  void reply.header('etag', `W/${tag}`).header('cache-control', 'private, no-cache');
  varyByCoding(reply);
  const held = heldTags(request);
  if (held.includes(tag)) return reply.code(304).send();
  let body = await cache.get(key);
  if (body === undefined) {
    body = String(reply.serialize(await compute()));
    await cache.set(key, body);
  }
  // `*` matches any representation there is (RFC 9110 13.1.2): known once the body is (a read that
  // refuses, say an unknown competitor, answers its error instead).
  if (held.includes('*')) return reply.code(304).send();
  return reply.type('application/json; charset=utf-8').send(body);
}

/** A stable key part for the resolved filters and the like: keys sorted, undefined dropped. */
export function keyOf(value: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/** The entity tags an `If-None-Match` names, compared weakly (`W/` dropped); `*` as itself. */
function heldTags(request: FastifyRequest): string[] {
  return (request.headers['if-none-match'] ?? '').split(',').map((h) => h.trim().replace(/^W\//, ''));
}

/** Whether the client holds `etag` already (an asset or page that always exists: `*` holds it too). */
export function holds(request: FastifyRequest, etag: string): boolean {
  const held = heldTags(request);
  return held.includes(etag.replace(/^W\//, '')) || held.includes('*');
}
