import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResponseCache } from './response-cache.ts';

/**
 * Answers a read from the cache when it can: `key` names everything the body depends on (its
 * data version included), so its hash is the body's ETag. A client holding it (`If-None-Match`)
 * gets 304 at once; a body computed before is sent as it was; else `compute` runs and its result,
 * serialized by the route's own response schema (so fields outside it never leave), is kept.
 */
export async function cachedReply(request: FastifyRequest, reply: FastifyReply, cache: ResponseCache, key: string, compute: () => Promise<unknown>): Promise<FastifyReply> {
  const etag = `"${createHash('sha256').update(key).digest('base64url').slice(0, 32)}"`;
  void reply.header('etag', etag).header('cache-control', 'private, no-cache');
  const given = request.headers['if-none-match'];
  if (given !== undefined && given.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
    return reply.code(304).send();
  }
  let body = await cache.get(key);
  if (body === undefined) {
    body = String(reply.serialize(await compute()));
    await cache.set(key, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
}

/** A stable key part for the resolved filters and the like: keys sorted, undefined dropped. */
export function keyOf(value: Record<string, unknown>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1))));
}
