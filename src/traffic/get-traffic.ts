import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { eachDay } from '../analytics/filters.ts';
import { PLATFORMS } from './crawler-registry.ts';

export const TOP_PAGES = 10;

export interface TrafficDay {
  day: string;
  crawlerHits: number;
  crawlers: { platform: string; platformLabel: string; bot: string; hits: number }[];
  topCrawledPages: { path: string; hits: number }[];
  aiVisits: number;
  visits: { platform: string; platformLabel: string; visits: number }[];
  topVisitedPages: { path: string; visits: number }[];
}

/**
 * Per day of the range (every day, quiet ones included): crawler hits and AI visits, by platform
 * and bot, and the TOP_PAGES most hit pages of each kind. The database aggregates: what comes back
 * is at most one row per day, kind, platform and bot, plus TOP_PAGES rows per day and kind. The rows
 * it reads are bounded by the range (at most 366 days) times what a day can hold (PAGE_CAP pages
 * per kind, record-traffic.ts), never by how much clients sent.
 */
export async function getTraffic(db: Kysely<DB>, projectId: string, from: string, to: string): Promise<TrafficDay[]> {
  const inRange = db.selectFrom('traffic_daily').where('project_id', '=', projectId).where('day', '>=', from).where('day', '<=', to);
  const totals = await inRange
    .select(['day', 'kind', 'platform', 'bot', (eb) => eb.fn.sum<number>('hits').as('hits')])
    .groupBy(['day', 'kind', 'platform', 'bot'])
    .execute();
  // Ties broken by path in code-point order ("C"), as the sort below does.
  const ranked = inRange
    .select(['day', 'kind', 'path', (eb) => eb.fn.sum<number>('hits').as('hits')])
    .select(sql<number>`row_number() over (partition by day, kind order by sum(hits) desc, path collate "C")`.as('rank'))
    .groupBy(['day', 'kind', 'path']);
  const pages = await db.selectFrom(ranked.as('ranked')).select(['day', 'kind', 'path', 'hits']).where('rank', '<=', TOP_PAGES).execute();

  const byDay = new Map<string, { totals: typeof totals; pages: typeof pages }>();
  const slot = (day: string) => {
    let entry = byDay.get(day);
    if (!entry) byDay.set(day, (entry = { totals: [], pages: [] }));
    return entry;
  };
  for (const row of totals) slot(row.day).totals.push(row);
  for (const row of pages) slot(row.day).pages.push(row);

  const label = (platform: string) => PLATFORMS[platform] ?? platform;
  const byHits = <T>(hits: (t: T) => number, name: (t: T) => string) => (a: T, b: T) => hits(b) - hits(a) || (name(a) < name(b) ? -1 : 1);
  return eachDay(from, to).map((day) => {
    const entry = byDay.get(day) ?? { totals: [], pages: [] };
    const crawlers = entry.totals
      .filter((r) => r.kind === 'crawler')
      .map((r) => ({ platform: r.platform, platformLabel: label(r.platform), bot: r.bot, hits: Number(r.hits) }))
      .sort(byHits((c) => c.hits, (c) => c.bot));
    const visitsBy = new Map<string, number>();
    for (const r of entry.totals) if (r.kind === 'visit') visitsBy.set(r.platform, (visitsBy.get(r.platform) ?? 0) + Number(r.hits));
    const visits = [...visitsBy]
      .sort(byHits(([, n]) => n, ([platform]) => platform))
      .map(([platform, n]) => ({ platform, platformLabel: label(platform), visits: n }));
    const top = (kind: 'crawler' | 'visit') =>
      entry.pages
        .filter((r) => r.kind === kind)
        .map((r) => ({ path: r.path, n: Number(r.hits) }))
        .sort(byHits((p) => p.n, (p) => p.path));
    return {
      day,
      crawlerHits: crawlers.reduce((s, c) => s + c.hits, 0),
      crawlers,
      topCrawledPages: top('crawler').map((p) => ({ path: p.path, hits: p.n })),
      aiVisits: visits.reduce((s, v) => s + v.visits, 0),
      visits,
      topVisitedPages: top('visit').map((p) => ({ path: p.path, visits: p.n })),
    };
  });
}
