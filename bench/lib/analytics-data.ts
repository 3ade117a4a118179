/**
 * A deterministic, large, realistic project for bench/analytics.ts: its subjects, and its run
 * records (operations.md section 3) as JSON Lines, generated lazily.
 *
 * At scale 1: 500 prompts x 7 engines x 3 locations, one run each per day over 90 days (945,000
 * runs). Scale s keeps engines, locations and days and takes round(500 * s) prompts. The same spec
 * always gives the same lines, ids included (the seed is fixed; run ids are a bijection of the
 * run's serial number, so they never collide).
 *
 * What the data looks like:
 * - 20 topics; each prompt has one, except about 3% with none. About 20% of prompts are branded.
 * - About 3% of runs failed (no mentions, citations or ads).
 * - Completed runs: 0-4 of the 5 tracked subjects (a brand and 4 competitors) with a position,
 *   a count of 1-3 and a sentiment score about 70% of the time. The brand's rate depends on the
 *   prompt (branded prompts higher), the engine, and rises slowly over the 90 days. About 10% of
 *   completed runs carry an `answer` text instead of a `mentions` list, so the service's mention
 *   detection runs too; about 5% of `mentions` lists also name an untracked vendor (ignored).
 * - 0-4 citations per completed run from a pool of 3,000 URLs over 400 registrable domains (the
 *   brand's and competitors' domains and subdomains, well-known review, forum, news and social
 *   sites, and made-up ones). Popularity is skewed, and each prompt favours about a dozen URLs.
 *   Each URL has a verification status, mostly verified (about 72% verified, 10% unchecked,
 *   7% stale, 6% broken, 5% hallucinated); about 3% of observations differ from the URL's usual
 *   status. About 20% of URLs come with an explicit `articleType`.
 * - A few ads: a competitor's on about 6% of completed runs of branded prompts, another vendor's on
 *   about 1% of the other completed runs.
 */
import { addDays } from '../../src/analytics/filters.ts';
import { ENGINE_KEYS, type ArticleType, type CitationStatus } from '../../src/runs/vocabulary.ts';
import { mulberry32 } from '../../src/demo/prng.ts';

export interface SubjectSpec {
  name: string;
  domain: string;
  color: string;
  aliases: string[];
}

export const BRAND: SubjectSpec = { name: 'Lumen CRM', domain: 'lumencrm.com', color: '#1f77b4', aliases: ['Lumen', 'LumenCRM'] };

export const COMPETITORS: SubjectSpec[] = [
  { name: 'Globex', domain: 'globex.com', color: '#ff7f0e', aliases: ['Globex CRM'] },
  { name: 'Initech', domain: 'initech.io', color: '#2ca02c', aliases: ['Initech Sales Cloud'] },
  { name: 'Umbrella Suite', domain: 'umbrella-suite.com', color: '#d62728', aliases: ['Umbrella'] },
  { name: 'Hooli', domain: 'hooli.co.uk', color: '#9467bd', aliases: ['Hooli CRM', 'HooliDesk'] },
];

export const TOPICS = [
  'CRM software', 'Sales automation', 'Customer support', 'Email marketing', 'Lead scoring',
  'Pipeline management', 'Marketing automation', 'Help desk', 'Live chat', 'Customer onboarding',
  'Sales forecasting', 'Contact management', 'Integrations', 'Mobile CRM', 'Pricing and plans',
  'Data privacy', 'Reporting and analytics', 'AI assistants', 'Small business tools', 'Enterprise sales',
] as const;

export const LOCATIONS = ['US', 'UK', 'DE'] as const;

export const FULL_PROMPTS = 500;
export const DAYS = 90;
export const URL_POOL_SIZE = 3_000;
export const DOMAIN_COUNT = 400;

export interface DatasetSpec {
  /** 1 = 500 prompts; 0.1 = 50 prompts. */
  scale: number;
  /** The last day with runs, `YYYY-MM-DD`. */
  endDay: string;
  days?: number;
  seed?: number;
}

export interface Dataset {
  prompts: number;
  days: number;
  firstDay: string;
  endDay: string;
  runs: number;
  /** The run records, one JSON line each, generated as they are pulled. */
  lines(): Generator<string>;
}

export function promptCount(scale: number): number {
  return Math.max(1, Math.round(FULL_PROMPTS * scale));
}

export function dataset(spec: DatasetSpec): Dataset {
  const days = spec.days ?? DAYS;
  const prompts = promptCount(spec.scale);
  const seed = spec.seed ?? 0x5eed2026;
  return {
    prompts,
    days,
    firstDay: addDays(spec.endDay, -(days - 1)),
    endDay: spec.endDay,
    runs: prompts * ENGINE_KEYS.length * LOCATIONS.length * days,
    lines: () => generateLines(prompts, days, spec.endDay, seed),
  };
}

// ---------------------------------------------------------------------------------------------
// Randomness


/** murmur3's finaliser: a bijection of 32-bit integers. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

const hex8 = (n: number) => n.toString(16).padStart(8, '0');

/** A v4-shaped UUID for run `n`; its first 32 bits are a bijection of n, so ids never repeat. */
export function runId(seed: number, n: number): string {
  const a = mix32(mix32(n) ^ seed);
  const b = mix32(a ^ 0x9e3779b9);
  const c = mix32(b ^ 0x7f4a7c15);
  const d = mix32(c ^ 0x94d049bb);
  const h = hex8(a) + hex8(b) + hex8(c) + hex8(d);
  const variant = ((parseInt(h[16]!, 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;

function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}

/** Draws indices in proportion to weights (cumulative table, binary search). */
class Weighted {
  readonly #cumulative: Float64Array;
  constructor(weights: readonly number[]) {
    this.#cumulative = new Float64Array(weights.length);
    let sum = 0;
    weights.forEach((w, i) => {
      sum += w;
      this.#cumulative[i] = sum;
    });
  }
  draw(random: () => number): number {
    const c = this.#cumulative;
    const target = random() * (c[c.length - 1] ?? 0);
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((c[mid] ?? 0) > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

// ---------------------------------------------------------------------------------------------
// Cited URLs

export interface PoolUrl {
  url: string;
  status: CitationStatus;
  articleType: ArticleType | undefined;
}

const KNOWN_DOMAINS = [
  'g2.com', 'capterra.com', 'trustradius.com', 'getapp.com', 'softwareadvice.com', 'gartner.com', 'trustpilot.com',
  'reddit.com', 'quora.com', 'stackoverflow.com', 'medium.com', 'wikipedia.org', 'youtube.com', 'linkedin.com', 'x.com',
  'forbes.com', 'techcrunch.com', 'theverge.com', 'zdnet.com', 'pcmag.com', 'techradar.com', 'hbr.org',
  'businessinsider.com', 'cnbc.com', 'nytimes.com', 'bbc.co.uk', 'salesforce.com', 'hubspot.com', 'zoho.com',
  'github.com', 'producthunt.com', 'nist.gov', 'mit.edu', 'europa.eu', 'searchengineland.com', 'substack.com',
  'ycombinator.com', 'vimeo.com', 'investopedia.com', 'inc.com',
];
const WORD_A = ['sales', 'crm', 'revenue', 'pipeline', 'growth', 'support', 'saas', 'startup', 'deal', 'lead', 'market', 'cloud', 'data', 'smb', 'b2b', 'funnel', 'churn', 'quota', 'tech', 'ops'];
const WORD_B = ['insider', 'weekly', 'digest', 'hub', 'lab', 'guide', 'review', 'journal', 'central', 'times', 'stack', 'report', 'daily', 'works', 'pulse', 'radar', 'notes', 'club', 'base', 'zone'];
const TLDS = ['.com', '.com', '.com', '.com', '.io', '.co', '.org', '.net', '.co.uk', '.de', '.com.au', '.edu', '.gov', '.fr', '.ca'];
const SLUG_WORDS = ['crm', 'pricing', 'setup', 'migration', 'automation', 'workflow', 'pipeline', 'forecast', 'email', 'chat', 'onboarding', 'privacy', 'reports', 'mobile', 'api', 'teams', 'startups', 'enterprise', 'guide', 'checklist'];
const STATUS_WEIGHTS: [CitationStatus, number][] = [['verified', 72], ['unchecked', 10], ['stale', 7], ['broken', 6], ['hallucinated', 5]];
const STATUS_TABLE = new Weighted(STATUS_WEIGHTS.map(([, w]) => w));
const EXPLICIT_TYPES: ArticleType[] = ['blog', 'docs', 'review', 'comparison', 'listicle', 'news', 'forum', 'video', 'other'];

/** The 3,000 cited URLs: one per domain first (400 domains), then the rest by domain popularity. */
export function urlPool(seed: number): PoolUrl[] {
  const random = mulberry32(seed ^ 0x00c17ed);
  const subjects = [BRAND, ...COMPETITORS];
  const domains: string[] = [...subjects.map((s) => s.domain), ...KNOWN_DOMAINS];
  const used = new Set(domains);
  for (let i = 0; domains.length < DOMAIN_COUNT; i++) {
    let name = `${WORD_A[i % WORD_A.length]}${WORD_B[Math.floor(i / WORD_A.length) % WORD_B.length]}`;
    if (i >= WORD_A.length * WORD_B.length) name += String(i);
    const domain = `${name}${pick(TLDS, random)}`;
    if (!used.has(domain)) {
      used.add(domain);
      domains.push(domain);
    }
  }
  // Popularity: the subjects' and well-known domains first, then a long tail.
  const domainTable = new Weighted(domains.map((_, rank) => 1 / (rank + 4)));
  const domainOf = (i: number) => (i < domains.length ? i : domainTable.draw(random));
  const subjectHosts = (d: string) => [d, `www.${d}`, `docs.${d}`, `blog.${d}`, `community.${d}`, `uk.${d}`];

  const pool: PoolUrl[] = [];
  for (let i = 0; i < URL_POOL_SIZE; i++) {
    const d = domainOf(i);
    const domain = domains[d]!;
    const slug = `${pick(SLUG_WORDS, random)}-${pick(SLUG_WORDS, random)}-${i}`;
    let host: string;
    let path: string;
    if (d < subjects.length) {
      host = pick(subjectHosts(domain), random);
      path = host.startsWith('docs.') ? `/guides/${slug}` : host.startsWith('blog.') ? `/${slug}` : host.startsWith('community.') ? `/t/${slug}` : pick([`/`, `/pricing`, `/features/${slug}`, `/compare/${domain.split('.')[0]}-vs-${pick(subjects, random).domain.split('.')[0]}-${i}`, `/customers/${slug}`], random);
      if (path === '/' || path === '/pricing') path += i < 100 ? '' : `?ref=${i}`;
    } else if (domain === 'youtube.com') {
      host = 'www.youtube.com';
      path = `/watch?v=crm${i.toString(36)}`;
    } else if (domain === 'reddit.com') {
      host = 'www.reddit.com';
      path = `/r/${pick(['sales', 'crm', 'smallbusiness', 'saas'], random)}/comments/${i.toString(36)}/${slug}`;
    } else if (domain === 'wikipedia.org') {
      host = pick(['en.wikipedia.org', 'de.wikipedia.org'], random);
      path = `/wiki/${slug}`;
    } else {
      const r = random();
      host = r < 0.65 ? `www.${domain}` : r < 0.85 ? domain : `${pick(['blog', 'news', 'docs', 'help'], random)}.${domain}`;
      path = pick([`/blog/${slug}`, `/best-${slug}`, `/reviews/${slug}`, `/news/2026/${slug}`, `/${slug}`, `/articles/${slug}`, `/top-10-${slug}`, `/compare/${slug}-vs-others`, `/`], random);
      if (path === '/') path = `/?p=${i}`;
    }
    const status = STATUS_WEIGHTS[STATUS_TABLE.draw(random)]![0];
    const articleType = random() < 0.2 ? pick(EXPLICIT_TYPES, random) : undefined;
    pool.push({ url: `https://${host}${path}`, status, articleType });
  }
  return pool;
}

// ---------------------------------------------------------------------------------------------
// Prompts

interface Prompt {
  text: string;
  topic: string | undefined;
  branded: boolean;
  /** Multiplies each subject's base mention rate (brand first). */
  affinity: number[];
  /** Indices into the URL pool this prompt's answers favour. */
  favourites: number[];
}

const STARTS = ['best', 'top rated', 'cheapest', 'most reliable', 'easiest', 'recommended', 'alternatives to popular', 'open source', 'affordable', 'secure'];
const AUDIENCES = ['for startups', 'for small teams', 'for agencies', 'for enterprises', 'for nonprofits', 'for real estate', 'for ecommerce', 'for B2B sales', 'in Europe', 'with free plan'];
const BRANDED_STEMS = ['is Lumen CRM good for', 'Lumen CRM vs Globex for', 'Lumen CRM pricing for', 'how does Lumen CRM handle', 'Lumen CRM reviews on', 'switching to Lumen CRM for'];

function makePrompts(count: number, random: () => number, urlTable: Weighted): Prompt[] {
  const prompts: Prompt[] = [];
  const texts = new Set<string>();
  for (let i = 0; i < count; i++) {
    const topic = random() < 0.03 ? undefined : TOPICS[i % TOPICS.length];
    const branded = random() < 0.2;
    const subject = (topic ?? 'crm software').toLowerCase();
    let text = branded ? `${pick(BRANDED_STEMS, random)} ${subject}` : `${pick(STARTS, random)} ${subject} tools ${pick(AUDIENCES, random)}`;
    if (texts.has(text)) text = `${text} (${i})`;
    texts.add(text);
    const affinity = Array.from({ length: 1 + COMPETITORS.length }, () => 0.5 + random());
    const favourites = Array.from({ length: 12 }, () => urlTable.draw(random));
    prompts.push({ text, topic, branded, affinity, favourites });
  }
  return prompts;
}

// ---------------------------------------------------------------------------------------------
// Answers

const UNTRACKED = ['Salesforce', 'HubSpot', 'Pipedrive', 'Zoho CRM', 'Freshsales'];
const FILLER = [
  'Pricing usually depends on the number of seats and on which automation features you need.',
  'Most teams start with a free trial and import their contacts from a spreadsheet.',
  'Look at the quality of the email integration, the mobile app and the reporting before you decide.',
  'Support quality varies a lot between vendors, so read recent reviews from teams of your size.',
  'Migration tools and an open API make it easier to change your mind later.',
  'For regulated industries, check where the data is hosted and which certifications are held.',
  'Forecasting features are often reserved for the higher tiers.',
  'Many small businesses find that a simple pipeline view covers most of their needs.',
];

function answerText(prompt: Prompt, named: string[][], random: () => number): string {
  const parts = [`Here is an overview of ${(prompt.topic ?? 'CRM software').toLowerCase()} tools.`, pick(FILLER, random)];
  for (const names of named) {
    const [first, ...more] = names;
    parts.push(`${first} is a solid option with ${pick(['strong reporting', 'a generous free tier', 'good integrations', 'an easy setup', 'responsive support'], random)}.`);
    for (const name of more) parts.push(`Users also say ${name} ${pick(['scales well', 'is easy to learn', 'has a good mobile app', 'is fairly priced'], random)}.`);
    if (random() < 0.5) parts.push(pick(FILLER, random));
  }
  if (random() < 0.6) parts.push(`Other tools worth a look are ${pick(UNTRACKED, random)} and ${pick(UNTRACKED, random)}.`);
  parts.push(pick(FILLER, random), pick(FILLER, random));
  return parts.join(' ');
}

// ---------------------------------------------------------------------------------------------
// Runs

const BASE_RATES = [0.3, 0.45, 0.35, 0.25, 0.15]; // brand (unbranded prompts), then competitors
const CITATION_COUNTS = new Weighted([15, 25, 25, 20, 15]); // 0 to 4 citations
const STATUSES = STATUS_WEIGHTS.map(([s]) => s);

function* generateLines(promptTotal: number, days: number, endDay: string, seed: number): Generator<string> {
  const random = mulberry32(seed);
  const pool = urlPool(seed);
  const urlTable = new Weighted(shuffledRanks(pool.length, mulberry32(seed ^ 0x0ba11)).map((rank) => 1 / (rank + 20)));
  const prompts = makePrompts(promptTotal, random, urlTable);
  const subjects = [BRAND, ...COMPETITORS];
  const engineFactor = ENGINE_KEYS.map(() => subjects.map(() => 0.7 + 0.6 * random()));
  const firstDay = addDays(endDay, -(days - 1));
  let serial = 0;
  for (let d = 0; d < days; d++) {
    const day = addDays(firstDay, d);
    const trend = d / days; // the brand gains ground over the period
    for (const [p, prompt] of prompts.entries()) {
      for (const [e, engine] of ENGINE_KEYS.entries()) {
        for (const [l, location] of LOCATIONS.entries()) {
          serial++;
          const hour = String((e * 3 + l * 7 + p) % 24).padStart(2, '0');
          const minute = String(Math.floor(random() * 60)).padStart(2, '0');
          const second = String(Math.floor(random() * 60)).padStart(2, '0');
          const record: Record<string, unknown> = {
            id: runId(seed, serial),
            engine,
            prompt: prompt.text,
            ...(prompt.topic === undefined ? {} : { topic: prompt.topic }),
            branded: prompt.branded,
            location,
            ranAt: `${day}T${hour}:${minute}:${second}Z`,
            status: 'ok',
          };
          if (random() < 0.03) {
            record.status = 'failed';
            yield JSON.stringify(record);
            continue;
          }
          // Which subjects the answer names, in the order it names them (at most 4).
          const named: number[] = [];
          for (let s = 0; s < subjects.length; s++) {
            let rate = (s === 0 && prompt.branded ? 0.8 : BASE_RATES[s]!) * prompt.affinity[s]! * engineFactor[e]![s]!;
            if (s === 0) rate += 0.12 * trend;
            if (random() < Math.min(0.95, rate)) named.push(s);
          }
          shuffle(named, random);
          if (named.length > 4) named.length = 4;
          if (random() < 0.1) {
            const names = named.map((s) => {
              const subject = subjects[s]!;
              const count = 1 + Math.floor(random() * 3);
              const terms = [subject.name, ...subject.aliases, subject.domain];
              return Array.from({ length: count }, (_, k) => (k === 0 ? subject.name : pick(terms, random)));
            });
            record.answer = answerText(prompt, names, random);
          } else {
            const mentions: Record<string, unknown>[] = named.map((s, i) => {
              const subject = subjects[s]!;
              const r = random();
              const m: Record<string, unknown> = {
                subject: r < 0.85 ? subject.name : r < 0.95 ? pick(subject.aliases, random) : subject.domain,
                position: i + 1,
                count: 1 + Math.floor(random() * 3),
              };
              if (random() < 0.7) m.sentiment = Math.round(35 + random() * 55);
              return m;
            });
            if (random() < 0.05) mentions.push({ subject: pick(UNTRACKED, random), position: named.length + 1 });
            record.mentions = mentions;
          }
          const citationCount = CITATION_COUNTS.draw(random);
          const chosen = new Set<number>();
          for (let tries = 0; chosen.size < citationCount && tries < 20; tries++) {
            chosen.add(random() < 0.6 ? pick(prompt.favourites, random) : urlTable.draw(random));
          }
          record.citations = [...chosen].map((u) => {
            const source = pool[u]!;
            const status = random() < 0.03 ? pick(STATUSES, random) : source.status;
            return source.articleType === undefined ? { url: source.url, status } : { url: source.url, status, articleType: source.articleType };
          });
          if (prompt.branded ? random() < 0.06 : random() < 0.01) {
            if (prompt.branded) {
              const rival = pick(COMPETITORS, random);
              record.ads = [{ advertiser: random() < 0.5 ? rival.name : rival.domain, url: `https://${rival.domain}/lp/switch-from-lumen` }];
            } else {
              record.ads = [{ advertiser: pick(UNTRACKED, random), url: 'https://www.example-ads.com/crm' }];
            }
          }
          yield JSON.stringify(record);
        }
      }
    }
  }
}

/** A random permutation of 0..n-1: each URL's popularity rank. */
function shuffledRanks(n: number, random: () => number): number[] {
  const ranks = Array.from({ length: n }, (_, i) => i);
  shuffle(ranks, random);
  return ranks;
}
