import { CRAWLERS, type Crawler } from './crawler-registry.ts';

/**
 * Characters that continue a bot name in a user-agent. A token only matches when the characters on
 * both sides are not among these, so `omgili` is not found in `omgilibot` (nor would a name like
 * `exabot` be found in `Alexabot`), `perplexitybot` not in the URL path `/perplexitybot-user`,
 * `diffbot` not in `Doximity-Diffbot` or the host `www.diffbot.com`, and `ai2bot` not in
 * `Ai2Bot-Dolma` (which has its own entry). Everything else separates: space, `/` (version), `;`
 * `(` `)` `+` `@` `,` and so on. User-agents are ASCII by grammar, so non-ASCII characters (junk)
 * separate too.
 */
export const NAME_CHARS = 'a-z0-9._-';

const BY_TOKEN: ReadonlyMap<string, Crawler> = new Map(CRAWLERS.map((c) => [c.token, c]));

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One regex for the whole registry, compiled once. Alternatives are ordered longest first, so where
 * two tokens could start at the same place the most specific wins; across places the leftmost token
 * wins (the UA's own product token comes before the comments and URLs that may repeat other names,
 * e.g. `Claude-User (claude-code/2.1.86; ...)`). No `g` flag: `exec` keeps no state between calls.
 * Case-insensitive without the `u` flag: non-ASCII characters never fold onto ASCII letters. A
 * crawler marked `matchCase` is matched only as its name is written (`ExaBot`, not Exalead's `Exabot`).
 */
const CRAWLER_PATTERN = new RegExp(
  `(?<![${NAME_CHARS}])(?:${[...BY_TOKEN.values()]
    .sort((a, b) => b.token.length - a.token.length || (a.token < b.token ? -1 : 1))
    .map((c) => (c.matchCase ? `(?-i:${escapeRegExp(c.name)})` : escapeRegExp(c.token)))
    .join('|')})(?![${NAME_CHARS}])`,
  'i',
);

/**
 * The AI crawler or agent a user-agent names, or undefined (the default: anything not in the registry
 * is not an AI crawler). What the UA claims, not who sent it: a spoofed GPTBot string matches GPTBot;
 * verifying the source IP is a separate step. Never throws.
 */
export function matchCrawler(userAgent: string): Crawler | undefined {
  if (typeof userAgent !== 'string' || userAgent.length === 0) return undefined;
  const match = CRAWLER_PATTERN.exec(userAgent);
  return match === null ? undefined : BY_TOKEN.get(match[0].toLowerCase());
}
