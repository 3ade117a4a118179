import type { Outbound } from '../outbound/outbound.ts';
import { checkUrl, createHostLimiter, type Observation } from './check-url.ts';
import { createRobotsCache } from './robots.ts';
import { createProbeCache } from './soft-404.ts';

/** Per request of a check (robots.txt, HEAD, GET, the soft-404 probe). */
export const CHECK_REQUEST_TIMEOUT_MS = 10_000;

/**
 * The checker of one process: the guarded client, robots.txt answers and soft-404 probes cached per
 * origin, at most two requests at once per host. Caches only save asking again; every instance may
 * hold its own.
 */
export function createChecker(outbound: Outbound): (url: string) => Promise<Observation> {
  const limiter = createHostLimiter(2);
  const robots = createRobotsCache({ outbound, timeoutMs: CHECK_REQUEST_TIMEOUT_MS });
  const probes = createProbeCache();
  return (url) => checkUrl(url, { outbound, robots, probes, limiter, timeoutMs: CHECK_REQUEST_TIMEOUT_MS });
}
