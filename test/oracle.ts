/**
 * An independent brute-force oracle: it computes every field of the timeseries, ranking and
 * citations endpoints straight from the raw run records; the tests compare it with what the
 * service answers (from its rollups).
 */
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import type { Kysely } from 'kysely';
import type { DB } from '../src/db/types.ts';
import { bearer } from './helpers.ts';

export const ENGINES = ['chatgpt', 'perplexity', 'gemini', 'google_ai_overviews', 'google_ai_mode', 'claude', 'copilot'] as const;
export const DAYS = ['2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13', '2026-11-14', '2026-11-15'];
export const TODAY = new Date('2026-11-16T12:00:00Z');

export interface OracleSubject {
  key: 'brand' | 'globex' | 'initech';
  type: 'brand' | 'competitor';
  name: string;
  domain: string;
  aliases: string[];
  /** Ways an answer may name it (each one token of the answer). */
  spellings: string[];
}

export const SUBJECTS: OracleSubject[] = [
  { key: 'brand', type: 'brand', name: 'Acme', domain: 'acme.com', aliases: ['AcmeCRM'], spellings: ['Acme', 'ACME', 'acmecrm', 'AcmeCRM', 'acme.com'] },
  { key: 'globex', type: 'competitor', name: 'Globex', domain: 'globex.com', aliases: ['Globex Corp'], spellings: ['Globex', 'globex corp', 'GLOBEX.COM'] },
  { key: 'initech', type: 'competitor', name: 'Initech', domain: 'initech.io', aliases: [], spellings: ['Initech', 'initech.io'] },
];
/** Words that look like names but are not, word-bounded: none of them is a mention. */
export const FILLER = ['the', 'best', 'CRM', 'tools', 'Acmes', 'Globexx', 'xacme.com', 'initechs', 'and', 'vs', 'acme_com'];

export interface PoolUrl {
  url: string;
  domain: string;
  articleType: string;
  sourceType: string;
}
export const URLS: PoolUrl[] = [
  { url: 'https://acme.com/', domain: 'acme.com', articleType: 'homepage', sourceType: 'owned' },
  { url: 'https://docs.acme.com/start', domain: 'acme.com', articleType: 'docs', sourceType: 'owned' },
  { url: 'https://fake.acme.com/made-up', domain: 'acme.com', articleType: 'other', sourceType: 'owned' },
  { url: 'https://www.globex.com/blog/launch', domain: 'globex.com', articleType: 'blog', sourceType: 'competitor' },
  { url: 'https://globex.com/pricing', domain: 'globex.com', articleType: 'other', sourceType: 'competitor' },
  { url: 'https://www.g2.com/products/acme/reviews', domain: 'g2.com', articleType: 'review', sourceType: 'review' },
  { url: 'https://www.reddit.com/r/crm/comments/abc', domain: 'reddit.com', articleType: 'forum', sourceType: 'ugc' },
  { url: 'https://news.example.co.uk/2026/best-crm-tools', domain: 'example.co.uk', articleType: 'listicle', sourceType: 'other' },
  { url: 'https://initech.io/vs/acme', domain: 'initech.io', articleType: 'comparison', sourceType: 'competitor' },
  { url: 'https://blog.initech.io/post', domain: 'initech.io', articleType: 'blog', sourceType: 'competitor' },
];
export const STATUSES = ['verified', 'broken', 'hallucinated', 'unchecked', 'stale'] as const;

export interface GenMention {
  subject: OracleSubject | 'untracked';
  spelling: string;
  position?: number;
  sentiment?: number;
  count?: number;
}
export interface GenRun {
  engine: (typeof ENGINES)[number];
  prompt: string;
  topic?: string;
  branded?: boolean;
  location?: string;
  day: string;
  second: number;
  status: 'ok' | 'failed';
  answerTokens?: string[];
  mentions?: GenMention[];
  citations: { url: PoolUrl; status?: (typeof STATUSES)[number] }[];
}

export const arbMention = fc.record({
  subject: fc.constantFrom<OracleSubject | 'untracked'>(...SUBJECTS, 'untracked'),
  spellingIndex: fc.nat(),
  position: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  sentiment: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
  count: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
});

export const arbRun: fc.Arbitrary<GenRun> = fc
  .record({
    engine: fc.constantFrom(...ENGINES),
    prompt: fc.constantFrom('best crm', 'crm for startups', 'acme pricing', 'Acme vs Globex'),
    topic: fc.option(fc.constantFrom('CRM', 'Pricing'), { nil: undefined }),
    branded: fc.option(fc.boolean(), { nil: undefined }),
    location: fc.option(fc.constantFrom('US', 'UK'), { nil: undefined }),
    day: fc.constantFrom(...DAYS),
    second: fc.integer({ min: 0, max: 3 }),
    status: fc.constantFrom<'ok' | 'failed'>('ok', 'ok', 'ok', 'ok', 'failed'),
    style: fc.constantFrom('answer', 'mentions', 'none'),
    answerTokens: fc.array(
      fc.oneof(
        fc.constantFrom(...FILLER),
        fc.constantFrom(...SUBJECTS.flatMap((s) => s.spellings)),
      ),
      { maxLength: 12 },
    ),
    mentions: fc.uniqueArray(arbMention, { maxLength: 4, selector: (m) => (m.subject === 'untracked' ? 'u' : m.subject.key) }),
    citations: fc.array(
      fc.record({ url: fc.constantFrom(...URLS), status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }) }),
      { maxLength: 4 },
    ),
  })
  .map((r) => ({
    engine: r.engine,
    prompt: r.prompt,
    topic: r.topic,
    branded: r.branded,
    location: r.location,
    day: r.day,
    second: r.second,
    status: r.status,
    answerTokens: r.style === 'answer' ? r.answerTokens : undefined,
    mentions:
      r.style === 'mentions'
        ? r.mentions.map((m) => ({
            subject: m.subject,
            spelling: m.subject === 'untracked' ? 'Umbrella' : m.subject.spellings[m.spellingIndex % m.subject.spellings.length]!,
            position: m.position,
            sentiment: m.sentiment,
            count: m.count,
          }))
        : undefined,
    citations: r.citations,
  }));

/** `second` counts from 09:00:00 UTC of the run's day. */
export function runTime(run: GenRun): string {
  const t = 9 * 3600 + run.second;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${run.day}T${two(Math.floor(t / 3600))}:${two(Math.floor(t / 60) % 60)}:${two(t % 60)}Z`;
}

export function toLine(run: GenRun, id: string): string {
  const record: Record<string, unknown> = {
    id,
    engine: run.engine,
    prompt: run.prompt,
    ranAt: runTime(run),
    status: run.status,
    citations: run.citations.map((c) => (c.status ? { url: c.url.url, status: c.status } : { url: c.url.url })),
  };
  if (run.topic !== undefined) record.topic = run.topic;
  if (run.branded !== undefined) record.branded = run.branded;
  if (run.location !== undefined) record.location = run.location;
  if (run.answerTokens) record.answer = run.answerTokens.join(', ') + '.';
  if (run.mentions) {
    record.mentions = run.mentions.map((m) => {
      const out: Record<string, unknown> = { subject: m.spelling };
      if (m.position !== undefined) out.position = m.position;
      if (m.sentiment !== undefined) out.sentiment = m.sentiment;
      if (m.count !== undefined) out.count = m.count;
      return out;
    });
  }
  return JSON.stringify(record);
}

// ---- the oracle: plain loops over the raw records -------------------------------------------

export interface OracleMention {
  subject: OracleSubject;
  position: number | null;
  sentiment: number | null;
  count: number;
}

/** What the records say each run mentions, read from the generator's own structure. */
export function mentionsOf(run: GenRun): OracleMention[] {
  if (run.mentions) {
    return run.mentions
      .filter((m): m is GenMention & { subject: OracleSubject } => m.subject !== 'untracked')
      .map((m) => ({ subject: m.subject, position: m.position ?? null, sentiment: m.sentiment ?? null, count: m.count ?? 1 }));
  }
  if (!run.answerTokens) return [];
  const order: OracleSubject[] = [];
  const counts = new Map<OracleSubject, number>();
  for (const token of run.answerTokens) {
    const subject = SUBJECTS.find((s) => s.spellings.some((sp) => sp.toLowerCase() === token.toLowerCase()));
    if (!subject) continue;
    if (!counts.has(subject)) order.push(subject);
    counts.set(subject, (counts.get(subject) ?? 0) + 1);
  }
  return order.map((subject, i) => ({ subject, position: i + 1, sentiment: null, count: counts.get(subject)! }));
}

export interface Filter {
  from: string;
  to: string;
  engine: (typeof ENGINES)[number] | null;
  topic: string | null;
  location: string | null;
  branded: boolean | null;
}

export function selected(run: GenRun, f: Filter, day?: string): boolean {
  return (
    run.status === 'ok' &&
    run.day >= f.from &&
    run.day <= f.to &&
    (day === undefined || run.day === day) &&
    (f.engine === null || run.engine === f.engine) &&
    (f.topic === null || run.topic === f.topic) &&
    (f.location === null || run.location === f.location) &&
    (f.branded === null || (run.branded ?? false) === f.branded)
  );
}

/** A run cites a page once: its first citation of each URL counts. */
export function citedOnce(run: GenRun): GenRun['citations'] {
  const seen = new Set<string>();
  return run.citations.filter((c) => !seen.has(c.url.url) && seen.add(c.url.url));
}

/** Each URL's status: the one reported by its latest citation (by run time, then by order) in a completed run. */
export function urlStatuses(runs: GenRun[]): Map<string, string> {
  const latest = new Map<string, { at: string; status: string }>();
  for (const run of runs) {
    if (run.status !== 'ok') continue;
    const at = runTime(run);
    for (const c of citedOnce(run)) {
      const seen = latest.get(c.url.url);
      if (!seen || at >= seen.at) latest.set(c.url.url, { at, status: c.status ?? 'unchecked' });
    }
  }
  return new Map([...latest].map(([url, v]) => [url, v.status]));
}

const Z = 1.959963984540054;
/** Wilson bounds as the roots of (n + z^2) p^2 - (2k + z^2) p + k^2/n = 0, in percent. */
export function wilsonRoots(k: number, n: number): [number, number] {
  if (n === 0) return [0, 100];
  const a = n + Z * Z;
  const b = -(2 * k + Z * Z);
  const c = (k * k) / n;
  const disc = Math.sqrt(b * b - 4 * a * c);
  return [Math.max(0, ((-b - disc) / (2 * a)) * 100), Math.min(100, ((-b + disc) / (2 * a)) * 100)];
}

/** The subject owning a URL: the most specific subject domain its host is under. */
export function ownerOf(url: string): OracleSubject | undefined {
  const host = new URL(url).hostname;
  return SUBJECTS.filter((s) => host === s.domain || host.endsWith(`.${s.domain}`)).sort((a, b) => b.domain.length - a.domain.length)[0];
}

export function expectedMeasures(runs: GenRun[], statuses: Map<string, string>, subject: OracleSubject, f: Filter, day?: string) {
  let sampleSize = 0;
  let mentionRuns = 0;
  let mentions = 0;
  let allMentions = 0;
  let positionSum = 0;
  let positionCount = 0;
  let sentimentSum = 0;
  let sentimentCount = 0;
  let citations = 0;
  for (const run of runs) {
    if (!selected(run, f, day)) continue;
    sampleSize++;
    const ms = mentionsOf(run);
    for (const m of ms) allMentions += m.count;
    const mine = ms.find((m) => m.subject === subject);
    if (mine) {
      mentionRuns++;
      mentions += mine.count;
      if (mine.position !== null) {
        positionSum += mine.position;
        positionCount++;
      }
      if (mine.sentiment !== null) {
        sentimentSum += mine.sentiment;
        sentimentCount++;
      }
    }
    for (const c of citedOnce(run)) {
      if (ownerOf(c.url.url) === subject && statuses.get(c.url.url) !== 'hallucinated') citations++;
    }
  }
  const measured = sampleSize >= 5;
  const [low, high] = wilsonRoots(mentionRuns, sampleSize);
  return {
    sampleSize,
    mentionRuns,
    visibility: measured ? (100 * mentionRuns) / sampleSize : null,
    withheld: measured ? null : sampleSize === 0 ? 'not sampled' : 'too few',
    ciLow: low,
    ciHigh: high,
    shareOfVoice: allMentions > 0 ? (100 * mentions) / allMentions : null,
    avgPosition: positionCount > 0 ? positionSum / positionCount : null,
    sentiment: sentimentCount > 0 ? sentimentSum / sentimentCount : null,
    sentimentCount,
    mentions,
    citations,
  };
}

export function near(actual: unknown, expected: number | null, what: string): void {
  if (expected === null) {
    assert.equal(actual, null, what);
    return;
  }
  assert.equal(typeof actual, 'number', what);
  assert.ok(Math.abs((actual as number) - expected) <= 0.0051, `${what}: ${actual} vs ${expected}`);
  assert.equal(Math.round((actual as number) * 100) / 100, actual, `${what} has at most 2 decimals`);
}

export function compareMeasures(actual: Record<string, unknown>, expected: ReturnType<typeof expectedMeasures>, what: string): void {
  for (const field of ['sampleSize', 'mentionRuns', 'sentimentCount', 'mentions', 'citations'] as const) {
    assert.equal(actual[field], expected[field], `${what} ${field}`);
  }
  for (const field of ['visibility', 'ciLow', 'ciHigh', 'shareOfVoice', 'avgPosition', 'sentiment'] as const) {
    near(actual[field], expected[field], `${what} ${field}`);
  }
  if (expected.withheld === null) assert.equal('rateWithheld' in actual, false, `${what} rateWithheld absent`);
  else if (expected.withheld === 'not sampled') assert.match(String(actual.rateWithheld), /not sampled yet/i, what);
  else {
    assert.match(String(actual.rateWithheld), /too few runs/i, what);
    assert.ok(String(actual.rateWithheld).includes(String(expected.sampleSize)), `${what} states n`);
    assert.ok(String(actual.rateWithheld).includes('5'), `${what} states the minimum`);
  }
}


/**
 * Every filter of `filters` through the timeseries (every subject), ranking and citations
 * endpoints, each number compared with the oracle's own computation from `runs`.
 */
export async function compareWithOracle(
  app: FastifyInstance,
  db: Kysely<DB>,
  key: string,
  projectId: string,
  ids: Map<OracleSubject, string>,
  runs: GenRun[],
  filters: Filter[],
): Promise<void> {
  const engineIds = new Map<string, string>((await db.selectFrom('engines').select(['id', 'key']).execute()).map((e) => [e.key, e.id]));
  const topics = new Map(
    (await db.selectFrom('topics').select(['id', 'name']).where('project_id', '=', projectId).execute()).map((t) => [t.name, t.id]),
  );
  const statuses = urlStatuses(runs);
    for (const f of filters) {
      if (f.topic !== null && !topics.has(f.topic)) continue; // a topic never imported is refused (400)
      const params = new URLSearchParams({ from: f.from, to: f.to });
      if (f.engine) params.set('engineId', engineIds.get(f.engine)!);
      if (f.topic) params.set('topicId', topics.get(f.topic)!);
      if (f.location) params.set('location', f.location);
      if (f.branded !== null) params.set('branded', String(f.branded));
      const echo = { from: f.from, to: f.to, engineId: f.engine ? engineIds.get(f.engine) : null, topicId: f.topic ? topics.get(f.topic) : null, location: f.location, branded: f.branded };

      // Timeseries of every subject.
      for (const subject of SUBJECTS) {
        const q = new URLSearchParams(params);
        if (subject.type === 'competitor') {
          q.set('subjectType', 'competitor');
          q.set('subjectId', ids.get(subject)!);
        }
        const res = await app.inject({ url: `/api/v1/projects/${projectId}/visibility/timeseries?${q}`, headers: bearer(key) });
        assert.equal(res.statusCode, 200, res.body);
        const data = res.json().data;
        assert.deepEqual(data.subject, { subjectType: subject.type, subjectId: ids.get(subject) });
        assert.deepEqual(data.filters, echo);
        const days = DAYS.filter((d) => d >= f.from && d <= f.to);
        assert.deepEqual(data.series.map((p: { day: string }) => p.day), days);
        for (const point of data.series) {
          compareMeasures(point, expectedMeasures(runs, statuses, subject, f, point.day), `${subject.name} ${point.day}`);
        }
      }

      // Ranking.
      const ranking = await app.inject({ url: `/api/v1/projects/${projectId}/visibility/ranking?${params}`, headers: bearer(key) });
      assert.equal(ranking.statusCode, 200, ranking.body);
      const rows = ranking.json().data.rows;
      assert.deepEqual(ranking.json().data.filters, echo);
      const expectedRows = SUBJECTS.map((s) => ({ s, m: expectedMeasures(runs, statuses, s, f) })).sort(
        (a, b) =>
          (b.m.visibility ?? -1) - (a.m.visibility ?? -1) ||
          b.m.mentionRuns - a.m.mentionRuns ||
          (a.s.name < b.s.name ? -1 : 1),
      );
      assert.deepEqual(rows.map((r: { name: string }) => r.name), expectedRows.map((e) => e.s.name), 'ranking order');
      for (const [i, row] of rows.entries()) {
        const { s, m } = expectedRows[i]!;
        assert.equal(row.subjectType, s.type);
        assert.equal(row.subjectId, ids.get(s));
        assert.equal(row.domain, s.domain);
        compareMeasures(row, m, `ranking ${s.name}`);
      }

      // Citations.
      const citations = await app.inject({ url: `/api/v1/projects/${projectId}/citations?${params}`, headers: bearer(key) });
      assert.equal(citations.statusCode, 200, citations.body);
      const expectedDomains = new Map<string, { total: number; statusCounts: Record<string, number>; urls: Set<string>; types: Set<string>; last: string; sourceType: string }>();
      for (const run of runs) {
        if (!selected(run, f)) continue;
        for (const c of citedOnce(run)) {
          const d = expectedDomains.get(c.url.domain) ?? { total: 0, statusCounts: { verified: 0, broken: 0, hallucinated: 0, unchecked: 0, stale: 0 }, urls: new Set(), types: new Set(), last: '', sourceType: c.url.sourceType };
          expectedDomains.set(c.url.domain, d);
          d.total++;
          d.statusCounts[statuses.get(c.url.url)!]!++;
          d.urls.add(c.url.url);
          d.types.add(c.url.articleType);
          if (run.day > d.last) d.last = run.day;
        }
      }
      const expected = [...expectedDomains.entries()]
        .map(([domain, d]) => ({
          domain,
          citedCount: d.total - d.statusCounts.hallucinated!,
          totalCount: d.total,
          statusCounts: d.statusCounts,
          urls: d.urls.size,
          articleTypes: ['video', 'forum', 'comparison', 'listicle', 'review', 'docs', 'news', 'blog', 'homepage', 'other'].filter((t) => d.types.has(t)),
          lastSeen: d.last,
          sourceType: d.sourceType,
        }))
        .sort((a, b) => b.citedCount - a.citedCount || b.totalCount - a.totalCount || (a.domain < b.domain ? -1 : 1));
      assert.deepEqual(citations.json().data.domains, expected);
    }
}
