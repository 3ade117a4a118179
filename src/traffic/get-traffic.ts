import type { Kysely } from 'kysely';
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

/** Per day of the range (every day, quiet ones included): crawler hits and AI visits, by platform and page. */
export async function getTraffic(db: Kysely<DB>, projectId: string, from: string, to: string): Promise<TrafficDay[]> {
  const rows = await db
    .selectFrom('traffic_daily')
    .select(['day', 'kind', 'platform', 'bot', 'path', 'hits'])
    .where('project_id', '=', projectId)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .execute();
  const byDay = new Map<string, typeof rows>();
  for (const row of rows) byDay.set(row.day, [...(byDay.get(row.day) ?? []), row]);
  const label = (platform: string) => PLATFORMS[platform] ?? platform;
  const top = <K extends string>(entries: Map<string, number>, key: K) =>
    [...entries]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .slice(0, TOP_PAGES)
      .map(([path, n]) => ({ path, [key]: n }) as { path: string } & Record<K, number>);
  return eachDay(from, to).map((day) => {
    const crawlers = new Map<string, { platform: string; bot: string; hits: number }>();
    const visits = new Map<string, number>();
    const crawledPages = new Map<string, number>();
    const visitedPages = new Map<string, number>();
    for (const r of byDay.get(day) ?? []) {
      if (r.kind === 'crawler') {
        const key = `${r.platform}\u0000${r.bot}`;
        const c = crawlers.get(key) ?? { platform: r.platform, bot: r.bot, hits: 0 };
        c.hits += r.hits;
        crawlers.set(key, c);
        crawledPages.set(r.path, (crawledPages.get(r.path) ?? 0) + r.hits);
      } else {
        visits.set(r.platform, (visits.get(r.platform) ?? 0) + r.hits);
        visitedPages.set(r.path, (visitedPages.get(r.path) ?? 0) + r.hits);
      }
    }
    const crawlerList = [...crawlers.values()]
      .sort((a, b) => b.hits - a.hits || (a.bot < b.bot ? -1 : 1))
      .map((c) => ({ platform: c.platform, platformLabel: label(c.platform), bot: c.bot, hits: c.hits }));
    const visitList = [...visits]
      .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
      .map(([platform, n]) => ({ platform, platformLabel: label(platform), visits: n }));
    return {
      day,
      crawlerHits: crawlerList.reduce((s, c) => s + c.hits, 0),
      crawlers: crawlerList,
      topCrawledPages: top(crawledPages, 'hits'),
      aiVisits: visitList.reduce((s, v) => s + v.visits, 0),
      visits: visitList,
      topVisitedPages: top(visitedPages, 'visits'),
    };
  });
}
