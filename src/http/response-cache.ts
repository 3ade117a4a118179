import type { Redis } from 'ioredis';

/**
 * Computed response bodies, by a key that names everything they depend on (the route, the
 * project, its data version, the resolved filters). A body never goes stale: a write moves the
 * project's data version, so it is never asked for again. The cache only saves computing it twice.
 */
export interface ResponseCache {
  get(key: string): Promise<string | undefined>;
  set(key: string, body: string): Promise<void>;
}

/** This process's cache: the least recently used bodies go first past `maxBytes`. */
export function memoryCache(maxBytes = 64 * 1024 * 1024): ResponseCache {
  const entries = new Map<string, string>();
  let bytes = 0;
  return {
    async get(key) {
      const body = entries.get(key);
      if (body === undefined) return undefined;
      entries.delete(key); // most recently used last
      entries.set(key, body);
      return body;
    },
    async set(key, body) {
      const old = entries.get(key);
      if (old !== undefined) bytes -= old.length;
      entries.delete(key);
      entries.set(key, body);
      bytes += body.length;
      for (const [k, v] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(k);
        bytes -= v.length;
      }
    },
  };
}

/**
 * Shared by every instance through Redis (an hour each). Redis unreachable: a miss, and nothing
 * stored; the request is computed, never failed or held.
 */
export function redisCache(redis: Redis, ttlSeconds = 3_600): ResponseCache {
  return {
    async get(key) {
      try {
        return (await redis.get(`sightline-rc:${key}`)) ?? undefined;
      } catch {
        return undefined;
      }
    },
    async set(key, body) {
      try {
        await redis.set(`sightline-rc:${key}`, body, 'EX', ttlSeconds);
      } catch {
        // a cache that cannot store is a cache that misses
      }
    },
  };
}

/** The near cache first, then the shared one (whose hits are kept near too). */
export function layeredCache(near: ResponseCache, far: ResponseCache): ResponseCache {
  return {
    async get(key) {
      const hit = await near.get(key);
      if (hit !== undefined) return hit;
      const shared = await far.get(key);
      if (shared !== undefined) await near.set(key, shared);
      return shared;
    },
    async set(key, body) {
      await near.set(key, body);
      await far.set(key, body);
    },
  };
}
