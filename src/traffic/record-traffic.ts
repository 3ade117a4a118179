import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { utcDay } from '../usage/calendar.ts';
import { OVERFLOW_PATH, PAGE_CAP } from './traffic-limits.ts';

export interface TrafficHit {
  kind: 'crawler' | 'visit';
  /** Where the hit came from (`rest`, `cf-worker`, `beacon`); not stored. */
  source: string;
  at: Date;
  platform: string;
  /** The crawler's name; '' for a visit. */
  bot: string;
  /** The page, from pathOf: starts with `/`, clean, at most MAX_PATH_BYTES. */
  path: string;
}

interface DayKind {
  day: string;
  kind: 'crawler' | 'visit';
  /** path -> `platform\u0000bot` -> hits */
  pages: Map<string, Map<string, number>>;
}

/**
 * Adds hits to the daily rollup, in the caller's transaction. The one writer of traffic_daily, so
 * the one place its bound holds: at most PAGE_CAP distinct pages per project, day and kind. A hit to
 * a page already kept that day counts at that page; a hit to a new page takes a free place, else
 * counts under OVERFLOW_PATH (with its platform and bot: totals stay exact). Deciding who gets the
 * last places is serialised per project, day and kind by a transaction-scoped advisory lock, taken
 * only when a batch brings pages the day does not have yet.
 */
export async function recordTraffic(tx: Transaction<DB>, projectId: string, hits: readonly TrafficHit[]): Promise<void> {
  for (const group of groupByDayKind(hits)) {
    const paths = [...group.pages.keys()];
    let kept = await keptPaths(tx, projectId, group, paths);
    if (paths.some((path) => !kept.has(path))) {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`traffic_daily:${projectId}:${group.day}:${group.kind}`}, 0))`.execute(tx);
      kept = await keptPaths(tx, projectId, group, paths);
      const fresh = paths
        .filter((path) => !kept.has(path) && path !== OVERFLOW_PATH)
        .map((path) => ({ path, hits: sum(group.pages.get(path)!) }))
        .sort((a, b) => b.hits - a.hits || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      const room = Math.max(0, PAGE_CAP - (await pageCount(tx, projectId, group)));
      for (const { path } of fresh.slice(0, room)) kept.add(path);
    }
    const rows = new Map<string, { project_id: string; day: string; kind: 'crawler' | 'visit'; path: string; platform: string; bot: string; hits: number }>();
    for (const [page, counts] of group.pages) {
      const path = kept.has(page) ? page : OVERFLOW_PATH;
      for (const [who, n] of counts) {
        const [platform = '', bot = ''] = who.split('\u0000');
        const key = `${path}\u0000${who}`;
        const row = rows.get(key) ?? { project_id: projectId, day: group.day, kind: group.kind, path, platform, bot, hits: 0 };
        row.hits += n;
        rows.set(key, row);
      }
    }
    // In key order, so that concurrent writers lock rows in the same order.
    const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
    for (let i = 0; i < sorted.length; i += 1_000) {
      await tx
        .insertInto('traffic_daily')
        .values(sorted.slice(i, i + 1_000))
        .onConflict((oc) => oc.columns(['project_id', 'day', 'kind', 'path', 'platform', 'bot']).doUpdateSet({ hits: sql`traffic_daily.hits + excluded.hits` }))
        .execute();
    }
  }
}

/** Hits by UTC day and kind, in key order (the order locks are taken in). */
function groupByDayKind(hits: readonly TrafficHit[]): DayKind[] {
  const groups = new Map<string, DayKind>();
  for (const hit of hits) {
    const day = utcDay(hit.at);
    const key = `${day}\u0000${hit.kind}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { day, kind: hit.kind, pages: new Map() }));
    let counts = group.pages.get(hit.path);
    if (!counts) group.pages.set(hit.path, (counts = new Map()));
    const who = `${hit.platform}\u0000${hit.bot}`;
    counts.set(who, (counts.get(who) ?? 0) + 1);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, group]) => group);
}

/** Which of `paths` the day already keeps (the overflow path always counts as kept). */
async function keptPaths(tx: Transaction<DB>, projectId: string, group: DayKind, paths: string[]): Promise<Set<string>> {
  const rows = await tx
    .selectFrom('traffic_daily')
    .select('path')
    .distinct()
    .where('project_id', '=', projectId)
    .where('day', '=', group.day)
    .where('kind', '=', group.kind)
    .where(sql<boolean>`path = any(${paths}::text[])`)
    .execute();
  const kept = new Set(rows.map((r) => r.path));
  kept.add(OVERFLOW_PATH);
  return kept;
}

/** Distinct pages the day keeps, counted no further than the cap. */
async function pageCount(tx: Transaction<DB>, projectId: string, group: DayKind): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from (
      select distinct path from traffic_daily
      where project_id = ${projectId} and day = ${group.day} and kind = ${group.kind} and path <> ${OVERFLOW_PATH}
      limit ${PAGE_CAP}
    ) pages`.execute(tx);
  return Number(rows[0]?.n ?? 0);
}

const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
