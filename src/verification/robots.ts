import { createRequire } from 'node:module';
import { OutboundError, type Outbound, type OutboundFailure } from '../outbound/outbound.ts';

// robots-parser is CommonJS (`module.exports = fn`) but its types declare an ES default export, which
// TypeScript (nodenext) reads as `{ default: fn }`; requiring it gives the function both agree on.
const robotsParser = createRequire(import.meta.url)('robots-parser') as typeof import('robots-parser').default;

/** The product token robots.txt groups are matched against (the user agent is `SightlineBot/<version> (...)`). */
export const ROBOTS_PRODUCT_TOKEN = 'SightlineBot';

/** What robots.txt says about fetching one URL. */
export type RobotsDecision =
  | { kind: 'allowed' }
  | { kind: 'disallowed' }
  /** robots.txt answered 5xx or 429: complete disallow (RFC 9309 2.3.1.4; 429 as Google treats it). */
  | { kind: 'unavailable'; status: number }
  /** robots.txt got no HTTP answer at all: complete disallow; the failure says why (the host is at stake). */
  | { kind: 'unreachable'; failure: OutboundFailure };

export interface RobotsCache {
  decide(url: string): Promise<RobotsDecision>;
}

export interface RobotsCacheOptions {
  outbound: Outbound;
  /** Per robots.txt request. Default 10 s. */
  timeoutMs?: number;
  /** Bytes of robots.txt read. Default 512 KiB (RFC 9309 2.5 asks parsers to take at least 500 KiB). */
  maxBytes?: number;
  /** How long an answer (rules, or a 4xx: allow all) is kept. Default and most 24 h (RFC 9309 2.4). */
  ttlMs?: number;
  /** How long a 5xx/429 or no answer is kept: short, so one bad minute does not silence a host for a day. Default 1 h. */
  failureTtlMs?: number;
  /** Origins kept, least recently used dropped first. Default 10,000. */
  maxOrigins?: number;
  now?: () => number;
}

type Robot = ReturnType<typeof robotsParser>;

/** What one origin's robots.txt fetch came to. */
type OriginRules =
  | { kind: 'rules'; robot: Robot }
  | { kind: 'allow_all' }
  | { kind: 'unavailable'; status: number }
  | { kind: 'unreachable'; failure: OutboundFailure };

interface Entry {
  rules: Promise<OriginRules>;
  /** Infinity while the fetch is in flight: concurrent checks of one origin share one fetch. */
  expiresAt: number;
}

/**
 * robots.txt, fetched once per origin and kept in a bounded in-process map (least recently used
 * dropped first), decided for the `SightlineBot` token with robots-parser. RFC 9309: 2xx -> its
 * rules; 4xx -> no rules, allow all; 5xx or no answer -> complete disallow. 429 is read as
 * "unavailable" too (a host asking us to slow down is not fetched). More than 5 redirects -> allow
 * all (2.3.1.2: may be taken as unavailable, i.e. 4xx).
 *
 * Not routed through the per-host limiter: every check awaits its origin's decision before its
 * first page request, so this fetch does not overlap the page requests of its own origin.
 */
export function createRobotsCache(options: RobotsCacheOptions): RobotsCache {
  const ttlMs = Math.min(options.ttlMs ?? 24 * 3_600_000, 24 * 3_600_000);
  const failureTtlMs = options.failureTtlMs ?? 3_600_000;
  const maxOrigins = options.maxOrigins ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  async function fetchRules(origin: string): Promise<OriginRules> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const response = await options.outbound.request(robotsUrl, {
        method: 'GET',
        timeoutMs: options.timeoutMs ?? 10_000,
        maxBytes: options.maxBytes ?? 512 * 1024,
        maxRedirects: 5,
      });
      if (response.status >= 200 && response.status < 300) return { kind: 'rules', robot: robotsParser(robotsUrl, response.body.toString('utf8')) };
      if (response.status === 429 || response.status >= 500) return { kind: 'unavailable', status: response.status };
      return { kind: 'allow_all' };
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (error.failure === 'too_many_redirects') return { kind: 'allow_all' };
      return { kind: 'unreachable', failure: error.failure };
    }
  }

  function rulesFor(origin: string): Promise<OriginRules> {
    const cached = entries.get(origin);
    if (cached && cached.expiresAt > now()) {
      entries.delete(origin);
      entries.set(origin, cached);
      return cached.rules;
    }
    const entry: Entry = { rules: fetchRules(origin), expiresAt: Infinity };
    entries.delete(origin);
    entries.set(origin, entry);
    while (entries.size > maxOrigins) entries.delete(entries.keys().next().value!);
    entry.rules.then(
      (rules) => {
        entry.expiresAt = now() + (rules.kind === 'rules' || rules.kind === 'allow_all' ? ttlMs : failureTtlMs);
      },
      () => {
        if (entries.get(origin) === entry) entries.delete(origin);
      },
    );
    return entry.rules;
  }

  return {
    async decide(url) {
      const target = new URL(url);
      target.hash = '';
      const rules = await rulesFor(target.origin);
      switch (rules.kind) {
        case 'allow_all':
          return { kind: 'allowed' };
        case 'unavailable':
          return { kind: 'unavailable', status: rules.status };
        case 'unreachable':
          return { kind: 'unreachable', failure: rules.failure };
        case 'rules':
          // Denies by default: robots-parser answers undefined for a URL it cannot place.
          return rules.robot.isAllowed(target.href, ROBOTS_PRODUCT_TOKEN) === true ? { kind: 'allowed' } : { kind: 'disallowed' };
      }
    },
  };
}
