import { randomBytes } from 'node:crypto';

/**
 * Soft 404s: pages that answer 2xx but say the page is not there. Two tests (soft404scan, the
 * wikibooks "Link Rot Bestiary"): the page's own `<title>` or first `<h1>` says so; or the page is
 * near-identical to what the same site answers for a random path that cannot exist (its
 * "not found" template). The I/O (fetching the page and the probe) is the checker's; this file
 * only judges, and keeps each site's probe for a while.
 */

/** Jaccard similarity of 3-word shingles at or above which a page is the site's "not found" template. */
export const SIMILAR_TO_PROBE = 0.9;
/** Below this many words a page is an app shell rendered by script: its text says nothing, so it is not compared. */
export const MIN_WORDS_TO_COMPARE = 10;
/** Words of a page compared (and kept per probe): a template shows itself early; this bounds memory and time. */
const MAX_WORDS = 5_000;

/** A path no real page has: what a site answers for it is what it answers for a missing page. */
export function probePath(): string {
  return `/sightline-probe-${randomBytes(8).toString('hex')}`;
}

/** What a site answered for a random path. */
export type Probe =
  /** A non-2xx (404, 410, 403 ...): the site tells missing pages apart, so a 2xx page of it is not compared. */
  | { kind: 'honest'; status: number }
  /** A 2xx: the site answers anything; its words are the template to compare pages with. */
  | { kind: 'answers'; words: string[]; finalUrl: string; redirected: boolean };

const ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', rsquo: "'", lsquo: "'", rdquo: '"', ldquo: '"', ndash: '–', mdash: '—', hellip: '…',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Markup to text: tags gone, entities decoded. */
function textOf(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>?/g, ' '));
}

/**
 * The words a reader sees, lower-cased: comments, scripts, styles, `<noscript>` (an app shell's
 * "enable JavaScript" would make every shell alike), templates and SVG dropped; an element cut off by
 * the body cap is dropped to the end.
 */
export function visibleWords(html: string): string[] {
  const stripped = html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
    .replace(/<(script|style|noscript|template|svg)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, ' ');
  return (textOf(stripped).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, MAX_WORDS);
}

export function shingles(words: readonly string[], size = 3): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + size <= words.length; i++) out.add(words.slice(i, i + size).join(' '));
  return out;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const s of a) if (b.has(s)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * How a title or heading says "not here", one separated part at a time ("Page not found | Acme"),
 * anchored so that a page *about* 404s ("How to fix 404 errors", "Why free will doesn't exist")
 * does not count.
 */
const NOT_FOUND_PHRASES = [
  /^(?:(?:oops|sorry|error|http)\W*)*404(?:\W*(?:error|page|not|found|file))*\W*1?\W*$/, // 404, Error 404 (Not Found)!!1
  /^(?:(?:oops|sorry|error)\W*)*(?:(?:the|this|that) )?(?:(?:page|file|document|article|post|resource|content|url) )?not found\W*$/,
  /\b(?:page|file|document|article|post|resource|content|url|this)\b[^.]{0,40}?\b(?:doesn't|does not|no longer|did not|didn't) exists?\W*$/,
  /\b(?:page|file|document|article|post|resource|content|url)\b[^.]{0,40}?\b(?:could not|couldn't|can't|cannot|can not) be found\b/,
  /\b(?:could not|couldn't|can't|cannot|can not) find (?:that|this|the|your) (?:page|file|document|article|post)\b/,
];

function saysNotHere(markup: string): boolean {
  const text = textOf(markup).toLowerCase().replace(/[’‘`´]/g, "'").replace(/\s+/g, ' ');
  return text
    .split(/\s[-–—|·•»:]\s|[|–—·•»:]/)
    .map((part) => part.trim())
    .some((part) => part !== '' && NOT_FOUND_PHRASES.some((phrase) => phrase.test(part)));
}

/** The page's `<title>` or its first `<h1>` says "not found", "404", "page not found", "doesn't exist". */
export function saysNotFound(html: string): boolean {
  const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html)?.[1];
  const h1 = /<h1\b[^>]*>([\s\S]*?)<\/h1\s*>/i.exec(html)?.[1];
  return (title !== undefined && saysNotHere(title)) || (h1 !== undefined && saysNotHere(h1));
}

/**
 * Whether a 2xx page is what its site answers for a path that does not exist: both were sent to one
 * landing URL, or their words are near-identical. Undefined probe (it failed) or an honest site:
 * no evidence, not a soft 404.
 */
export function resemblesProbe(page: { html: string; finalUrl: string; redirected: boolean }, probe: Probe | undefined): boolean {
  if (probe === undefined || probe.kind === 'honest') return false;
  // The probe landed on this very page: if the page was sent there too, the site treats its path as
  // unknown; if the cited URL is that landing page (the home page, say), the probe says nothing of it.
  if (page.finalUrl === probe.finalUrl) return page.redirected;
  const words = visibleWords(page.html);
  if (words.length < MIN_WORDS_TO_COMPARE) return false;
  return jaccard(shingles(words), shingles(probe.words)) >= SIMILAR_TO_PROBE;
}

export interface ProbeCache {
  /** The origin's probe, from the cache or by calling `probe` (once, however many checks ask at the same time). */
  get(origin: string, probe: () => Promise<Probe | undefined>): Promise<Probe | undefined>;
}

export interface ProbeCacheOptions {
  /** Default 1 h: about one check batch. */
  ttlMs?: number;
  /** Origins kept, least recently used dropped first. Default 1,000 (each keeps up to 5,000 words). */
  maxOrigins?: number;
  now?: () => number;
}

/**
 * Each origin's probe, kept a while. A probe that failed (undefined: timeout, 5xx, 429, robots) is
 * not kept, so the next page of that site tries again rather than going unjudged for an hour.
 */
export function createProbeCache(options: ProbeCacheOptions = {}): ProbeCache {
  const ttlMs = options.ttlMs ?? 3_600_000;
  const maxOrigins = options.maxOrigins ?? 1_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { probe: Promise<Probe | undefined>; expiresAt: number }>();
  return {
    get(origin, probe) {
      const cached = entries.get(origin);
      entries.delete(origin);
      if (cached && cached.expiresAt > now()) {
        entries.set(origin, cached);
        return cached.probe;
      }
      const entry = { probe: probe(), expiresAt: Infinity };
      entries.set(origin, entry);
      while (entries.size > maxOrigins) entries.delete(entries.keys().next().value!);
      const forget = () => {
        if (entries.get(origin) === entry) entries.delete(origin);
      };
      entry.probe.then((result) => (result === undefined ? forget() : (entry.expiresAt = now() + ttlMs)), forget);
      return entry.probe;
    },
  };
}
