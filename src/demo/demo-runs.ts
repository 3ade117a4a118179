import { createHash } from 'node:crypto';
import { addDays } from '../analytics/filters.ts';
import { utcDay } from '../usage/calendar.ts';
import type { RunProvenance, RunRecord } from '../runs/parse-run-line.ts';
import { ENGINE_KEYS } from '../runs/vocabulary.ts';
import { ENGINE_ROUTES } from '../sampling/providers/providers-config.ts';
import { mulberry32 } from './prng.ts';

/**
 * 28 days of deterministic pseudo-random runs ending today (`now`'s UTC day), for the demo brand
 * (operations.md section 4): all seven engines, three topics, two locations, branded and unbranded
 * prompts; one day not sampled, two days under the 5-run minimum, citations in all five statuses, a
 * rival's ads on branded prompts, and a significant rise of the brand's visibility eight days before
 * today. The same project and day give the same runs, ids included; a run is never later than `now`
 * (today's runs are spread over the part of the day gone by).
 */
export function demoRunLines(projectId: string, now: Date): string[] {
  const today = utcDay(now);
  const random = mulberry32(seedOf(projectId));
  // Answer texts draw from their own sequence, so the runs' numbers do not depend on them.
  const wording = mulberry32(seedOf(`${projectId}:answers`));
  const start = addDays(today, -27);
  const lines: string[] = [];
  let serial = 0;
  for (let d = 0; d < 28; d++) {
    const day = addDays(start, d);
    if (d === 5) continue; // not sampled
    const thin = d === 9 || d === 16; // under the minimum: a handful of runs
    const brandRate = d >= CHANGE_DAY ? 0.72 : 0.22; // the significant change
    let runsToday = 0;
    for (const engine of ENGINE_KEYS) {
      for (const prompt of PROMPTS) {
        for (const location of LOCATIONS) {
          if (thin && runsToday >= 3) continue;
          runsToday++;
          serial++;
          const minuteOfDay = (6 + (serial % 12)) * 60 + (serial % 60);
          const failed = random() < 0.04;
          // A search surface sometimes shows no AI answer at all: that is its own outcome, not a failure.
          const unanswered = failed && SEARCH_SURFACES.has(engine);
          const record: Record<string, unknown> = {
            id: idOf(projectId, serial),
            engine,
            prompt: prompt.text,
            topic: prompt.topic,
            branded: prompt.branded,
            location,
            ranAt: ranAt(day, minuteOfDay, day === today ? now : undefined),
            status: unanswered ? 'no_answer' : failed ? 'failed' : 'ok',
          };
          if (!failed) {
            const rates: [string, number][] = [
              ['Acme CRM', prompt.branded ? Math.min(0.95, brandRate + 0.25) : brandRate],
              ['Globex', 0.5],
              ['Initech', 0.27],
              ['Umbrella', 0.15],
            ];
            // Every subject's draw is taken (the other days' numbers do not depend on what follows),
            // but on the two days of the change the brand's share is spread evenly over the day's runs:
            // the rise is there whatever the seed, not only for most of them.
            const even = d === CHANGE_DAY - 1 || d === CHANGE_DAY;
            const named = rates.map(([subject, p]) => ({ subject, p, draw: random() })).filter(({ subject, p, draw }) => (even && subject === 'Acme CRM' ? evenDraw(runsToday) : draw) < p).map(({ subject }) => subject);
            shuffle(named, random);
            record.mentions = named.map((subject, i) => {
              const m: Record<string, unknown> = { subject, position: i + 1, count: 1 + Math.floor(random() * 3) };
              if (random() < 0.7) m.sentiment = Math.round(40 + random() * 50);
              return m;
            });
            const citations = Math.floor(random() * 4);
            record.citations = Array.from({ length: citations }, () => {
              const source = CITED[Math.floor(random() * CITED.length)]!;
              return { url: source.url, status: source.status };
            });
            record.answer = demoAnswer(named, wording);
            if (prompt.branded && random() < 0.03) record.ads = [{ advertiser: 'Globex', url: 'https://globex.com/switch-from-acme' }];
          }
          lines.push(JSON.stringify(record));
        }
      }
    }
  }
  return lines;
}

/**
 * How a demo run would have been captured: the provider and default model of its engine, a
 * plausible latency and, for Perplexity (the one provider that reports it), a cost; the pages it
 * cites among the sources retrieved, and the question as the one search fanned out to.
 */
export function demoProvenance(record: RunRecord): RunProvenance {
  const route = ENGINE_ROUTES[record.engine];
  const random = mulberry32(seedOf(`${record.id}:provenance`));
  const cited = record.citations.map((c) => c.rawUrl);
  return {
    checkId: record.id!,
    provider: route.provider,
    model: route.defaultModel,
    surface: route.surface,
    latencyMs: Math.round(900 + random() * 6_000),
    costUsd: route.provider === 'perplexity' && record.status !== 'failed' ? Math.round((0.005 + random() * 0.004) * 10_000) / 10_000 : null,
    sourceUrls: record.status === 'ok' ? [...cited, ...EXTRA_SOURCES.filter(() => random() < 0.3)] : [],
    fanOutQueries: record.status === 'ok' && route.surface === 'api' ? [record.prompt] : [],
    reason: record.status === 'failed' ? 'server_error: 503: the engine was unavailable' : record.status === 'no_answer' ? 'no AI answer for this query' : null,
  };
}

const DAY_MS = 86_400_000;

/** The day (0-27) the brand's visibility rises: eight days before today. */
const CHANGE_DAY = 20;

/** The k-th point of the golden-ratio sequence in [0, 1): evenly spread, so a day's share is its rate within a run or two. */
const evenDraw = (k: number) => (k * 0.6180339887498949) % 1;

/** A run's time: `minuteOfDay` on `day`, or on today, the same share of the part of the day before `now`. */
function ranAt(day: string, minuteOfDay: number, now: Date | undefined): string {
  const start = Date.parse(`${day}T00:00:00Z`);
  const offset = minuteOfDay * 60_000;
  if (now === undefined) return new Date(start + offset).toISOString().replace('.000Z', 'Z');
  return new Date(start + Math.floor((offset / DAY_MS) * (now.getTime() - start))).toISOString();
}

const EXTRA_SOURCES = ['https://www.g2.com/categories/crm', 'https://www.pcmag.com/picks/the-best-crm-software', 'https://news.ycombinator.com/item?id=41000000'];

const SEARCH_SURFACES: ReadonlySet<string> = new Set(['google_ai_overviews', 'google_ai_mode', 'copilot']);

const OPENINGS = ['Here are options worth a look', 'Several tools come up often', 'It depends on your team, but consider these', 'Popular choices include the following'];
const PRAISE = ['strong on ease of use', 'known for its integrations', 'often chosen by small teams', 'praised for reporting', 'a solid value for the price', 'good if you need automation'];

/** An answer naming the subjects in order of their positions (and no other tracked name). */
function demoAnswer(named: readonly string[], random: () => number): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  if (named.length === 0) return `There is no single answer: compare a few vendors' trials, pricing pages and independent reviews before choosing.`;
  const lines = named.map((name, i) => `${i + 1}. ${name}: ${pick(PRAISE)}.`);
  return `${pick(OPENINGS)}:\n${lines.join('\n')}\nCheck current pricing, since plans change often.`;
}

const PROMPTS = [
  { text: 'best crm for startups', topic: 'CRM software', branded: false },
  { text: 'acme crm pricing', topic: 'CRM software', branded: true },
  { text: 'crm with email automation', topic: 'Sales automation', branded: false },
  { text: 'is acme better than globex', topic: 'Sales automation', branded: true },
  { text: 'help desk software for small teams', topic: 'Customer support', branded: false },
  { text: 'sales pipeline tools', topic: 'Sales automation', branded: false },
];

const LOCATIONS = ['US', 'UK'];

/** Cited pages, each with its verification status (statuses are kept per URL). */
const CITED = [
  { url: 'https://acme.com/', status: 'verified' },
  { url: 'https://acme.com/pricing', status: 'verified' },
  { url: 'https://docs.acme.com/getting-started', status: 'verified' },
  { url: 'https://acme.com/blog/crm-checklist', status: 'stale' },
  { url: 'https://acme.com/features/ai-assistant-2027', status: 'hallucinated' },
  { url: 'https://globex.com/pricing', status: 'verified' },
  { url: 'https://www.globex.com/blog/globex-vs-acme', status: 'verified' },
  { url: 'https://initech.com/', status: 'broken' },
  { url: 'https://www.g2.com/products/acme-crm/reviews', status: 'verified' },
  { url: 'https://www.capterra.com/p/acme-crm', status: 'unchecked' },
  { url: 'https://www.reddit.com/r/sales/comments/crm_for_startups', status: 'verified' },
  { url: 'https://www.youtube.com/watch?v=acme-demo', status: 'verified' },
  { url: 'https://techcrunch.com/2026/10/02/acme-raises-series-b', status: 'verified' },
  { url: 'https://www.forbes.com/advisor/business/software/best-crm-software', status: 'verified' },
  { url: 'https://en.wikipedia.org/wiki/Customer_relationship_management', status: 'verified' },
  { url: 'https://umbrella.io/compare/umbrella-vs-acme', status: 'unchecked' },
  { url: 'https://crm-reviews.example.org/top-10-crm-tools-2026', status: 'hallucinated' },
];

function seedOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32LE(0);
}

/** A stable UUID (v4 layout) for the n-th demo run of a project. */
function idOf(projectId: string, n: number): string {
  const h = createHash('sha256').update(`${projectId}:demo-run:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}


function shuffle<T>(items: T[], random: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
