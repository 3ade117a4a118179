import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { principalOf } from '../auth/auth-plugin.ts';
import { RateLimitedError } from './errors.ts';

export const DEFAULT_RATE_LIMIT = 60;
export const RATE_WINDOW_MS = 60_000;

/**
 * Per-key limit for the authenticated routes registered after it in the same scope: one fixed
 * 60-second window per key across all those routes, `max` from the key (default 60). It runs after
 * the auth hook (preValidation), so it counts keys, not addresses, and a bad request still counts.
 *
 * With Redis the window is shared by every instance. When Redis cannot be reached the request is
 * served unlimited (`skipOnError`) and the failure logged: analytics reads stay available through
 * a cache outage, at the cost of not enforcing the limit meanwhile.
 */
export async function registerKeyRateLimit(app: FastifyInstance, redis: Redis | undefined): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    hook: 'preValidation',
    timeWindow: RATE_WINDOW_MS,
    max: async (request) => principalOf(request).rateLimit ?? DEFAULT_RATE_LIMIT,
    keyGenerator: (request) => `key:${principalOf(request).keyId}`,
    ...(redis ? { redis, nameSpace: 'sightline-rl-', skipOnError: true } : {}),
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    addHeaders: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
      'retry-after': true,
    },
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
}
