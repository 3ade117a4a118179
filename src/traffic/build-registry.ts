import type { Crawler, CrawlerPurpose, RegistryOverlay } from './crawler-registry.ts';

/** One agent of ai.robots.txt's robots.json: its name is the key; we read only `function`. */
export interface RobotsJsonAgent {
  operator?: unknown;
  function?: unknown;
  [field: string]: unknown;
}

/** A robots.txt token that no crawler sends in its user agent: listed for robots.txt writers, never matched. */
export interface RobotsTxtToken {
  name: string;
  platform: string;
  platformLabel: string;
  token: string;
}

/** What the registry makes of one name of the upstream list. */
export interface UpstreamAgent {
  name: string;
  /** The token the name is matched by (its own, or the one it is a version or case variant of). */
  token: string;
  status: 'matched' | 'robots-txt-only' | 'not-matched';
  /** Why a name is not matched (not-matched), or which entry a variant folds into. */
  note?: string;
}

export interface Registry {
  crawlers: readonly Crawler[];
  robotsTxtOnly: readonly RobotsTxtToken[];
  /** Every upstream name, in upstream order. */
  upstream: readonly UpstreamAgent[];
}

/** `Brightbot 1.0`, `iaskspider/2.0`, `MistralAI-User/1.0`: a name and a version. */
const VERSIONED = /^(.+?)(?:\/| v?)\d+(?:\.\d+)*$/;

/**
 * The registry from the upstream list and our overlay. Every upstream name is matched in user
 * agents (platform and purpose from the overlay, else platform `other` and a purpose read from its
 * `function`) unless the overlay lists it as a robots.txt-only token or as not matched. A name that
 * is another name plus a version, or another name in other case, folds into that one. Names of our
 * own (`ownNames`) are added. Throws on an overlay platform that PLATFORMS lacks, and on input
 * that is not robots.json's shape: at import, never at request time.
 */
export function buildRegistry(robots: unknown, overlay: RegistryOverlay): Registry {
  if (robots === null || typeof robots !== 'object' || Array.isArray(robots)) throw new Error('robots.json: not an object of agents');
  const entries = Object.entries(robots as Record<string, RobotsJsonAgent>);
  for (const [name, agent] of entries) {
    if (name.trim() === '' || name !== name.trim()) throw new Error(`robots.json: agent name "${name}" is blank or padded`);
    if (agent === null || typeof agent !== 'object') throw new Error(`robots.json: agent ${name} is not an object`);
  }
  const label = (platform: string) => {
    const found = overlay.platforms[platform];
    if (found === undefined) throw new Error(`crawler registry: platform "${platform}" is not in PLATFORMS`);
    return found;
  };
  const listed = new Set(entries.map(([name]) => name.toLowerCase()));
  const tokenOf = (name: string) => {
    const base = VERSIONED.exec(name)?.[1];
    return (base !== undefined && listed.has(base.toLowerCase()) ? base : name).toLowerCase();
  };

  const upstream: UpstreamAgent[] = [];
  const firstName = new Map<string, string>();
  const functions = new Map<string, unknown>();
  for (const [name, agent] of entries) {
    const token = tokenOf(name);
    const robotsOnly = overlay.robotsTxtOnly[token];
    const notMatched = overlay.notMatched[token];
    const status = robotsOnly ? 'robots-txt-only' : notMatched !== undefined ? 'not-matched' : 'matched';
    const row: UpstreamAgent = { name, token, status };
    if (notMatched !== undefined) row.note = notMatched;
    else if (token !== name.toLowerCase()) row.note = `a version of ${token}`;
    else if (firstName.has(token)) row.note = `another spelling of ${firstName.get(token)}`;
    upstream.push(row);
    if (!firstName.has(token)) {
      firstName.set(token, name);
      functions.set(token, agent.function);
    }
  }

  const crawlers: Crawler[] = [];
  const robotsTxtOnly: RobotsTxtToken[] = [];
  const add = (token: string, upstreamName: string | undefined, fn: unknown) => {
    const curated = overlay.curated[token];
    const name = curated?.name ?? upstreamName ?? token;
    if (name.toLowerCase() !== token) throw new Error(`crawler registry: curated name ${name} is not spelled like its token ${token}`);
    const platform = curated?.platform ?? 'other';
    const crawler: Crawler = { name, platform, platformLabel: label(platform), token, purpose: curated?.purpose ?? purposeFrom(fn) };
    if (curated?.matchCase) crawler.matchCase = true;
    crawlers.push(Object.freeze(crawler));
  };
  for (const [token, name] of firstName) {
    const robotsOnly = overlay.robotsTxtOnly[token];
    if (robotsOnly) robotsTxtOnly.push(Object.freeze({ name, platform: robotsOnly.platform, platformLabel: label(robotsOnly.platform), token }));
    else if (overlay.notMatched[token] === undefined) add(token, name, functions.get(token));
  }
  for (const token of overlay.ownNames) if (!firstName.has(token)) add(token, undefined, undefined);
  for (const curated of Object.values(overlay.curated)) label(curated.platform);
  return { crawlers: Object.freeze(crawlers), robotsTxtOnly: Object.freeze(robotsTxtOnly), upstream: Object.freeze(upstream) };
}

/**
 * A purpose for an agent the overlay does not know yet, from robots.json's free-text `function`
 * ("AI Agents", "AI Assistants", "AI Search Crawlers", "AI Data Scrapers", ...). Collecting data
 * (training) is the default: it is what most of the list does.
 */
function purposeFrom(fn: unknown): CrawlerPurpose {
  const text = typeof fn === 'string' ? fn.toLowerCase() : '';
  if (/\bagents?\b/.test(text)) return 'agent';
  if (/assistant|user|prompt|answer/.test(text)) return 'user';
  if (/search|index|data provider/.test(text)) return 'search';
  return 'training';
}
