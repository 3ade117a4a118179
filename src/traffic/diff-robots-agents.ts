import { buildRegistry, type UpstreamAgent } from './build-registry.ts';
import type { RegistryOverlay } from './crawler-registry.ts';
import { NAME_CHARS } from './match-crawler.ts';

export interface AddedAgent extends UpstreamAgent {
  /** For a matched name: where it lands. */
  platform?: string;
  purpose?: string;
  /** What a reviewer should look at before accepting it. */
  warnings: string[];
}

export interface AgentsDiff {
  before: number;
  after: number;
  added: AddedAgent[];
  removed: (UpstreamAgent & { curated: boolean })[];
}

/** Shorter names are often words or acronyms that ordinary user agents contain. */
const SHORT_NAME = 5;

/**
 * What taking `next` as the upstream agent list would change, for review: the names added (with the
 * platform and purpose the registry gives each, and warnings: a short name, or one that user agents
 * of `ordinaryUserAgents` contain) and the names removed. Pure; throws as buildRegistry does on a
 * list that is not robots.json's shape.
 */
export function diffRobotsAgents(current: unknown, next: unknown, overlay: RegistryOverlay, ordinaryUserAgents: readonly string[]): AgentsDiff {
  const was = buildRegistry(current, overlay);
  const will = buildRegistry(next, overlay);
  const before = new Set(was.upstream.map((a) => a.name));
  const after = new Set(will.upstream.map((a) => a.name));
  const added = will.upstream
    .filter((a) => !before.has(a.name))
    .map((agent): AddedAgent => {
      const out: AddedAgent = { ...agent, warnings: [] };
      const crawler = agent.status === 'matched' ? will.crawlers.find((c) => c.token === agent.token) : undefined;
      if (!crawler) return out;
      out.platform = crawler.platform;
      out.purpose = crawler.purpose;
      if (crawler.token.length < SHORT_NAME) out.warnings.push(`short name (${crawler.token.length} characters): is it a word ordinary user agents contain?`);
      const escaped = crawler.token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const pattern = new RegExp(`(?<![${NAME_CHARS}])${escaped}(?![${NAME_CHARS}])`, crawler.matchCase ? '' : 'i');
      const hits = ordinaryUserAgents.filter((ua) => pattern.test(ua));
      if (hits.length > 0) out.warnings.push(`found in ${hits.length} non-AI user agent(s), e.g. ${hits[0]}: add it to NOT_MATCHED`);
      return out;
    });
  const removed = was.upstream.filter((a) => !after.has(a.name)).map((a) => ({ ...a, curated: Object.hasOwn(overlay.curated, a.token) }));
  return { before: before.size, after: after.size, added, removed };
}
