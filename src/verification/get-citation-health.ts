import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Filters } from '../analytics/filters.ts';
import { round2, wilsonBounds } from '../analytics/statistics.ts';
import { urlDaysTotals } from '../analytics/url-days-totals.ts';
import type { CitationStatus } from '../runs/vocabulary.ts';

export interface ShareOf {
  /** URLs in this status. */
  count: number;
  /** Of the URLs with a conclusive status (verified, stale, broken, hallucinated), %; null when none. */
  share: number | null;
  ciLow: number;
  ciHigh: number;
}

export interface Health {
  /** Distinct URLs cited in the range. */
  urls: number;
  byStatus: Record<CitationStatus, number>;
  /** URLs with a conclusive status: the denominator of the shares (unchecked ones are unknown, not healthy). */
  checked: number;
  hallucinated: ShareOf;
  broken: ShareOf;
}

export interface CitationHealth {
  overall: Health;
  engines: (Health & { engineId: string; engine: string })[];
  /** Pages on the brand's own domain that engines cite but that do not exist (hallucinated) or no longer do (stale): redirect or create them. */
  missingOwnPages: { url: string; status: 'hallucinated' | 'stale'; citations: number; engines: string[]; lastSeen: string; note: string | null }[];
}

const STATUSES: CitationStatus[] = ['verified', 'stale', 'broken', 'hallucinated', 'unchecked'];

/**
 * How healthy the pages engines cite are, over the range: per engine and overall, the distinct URLs
 * cited by status, and the shares hallucinated and broken with Wilson 95% intervals, over the URLs
 * whose status is known. One read of the engine cells of `url_days` for the range's months (URLs x
 * engines x months rows), joined with the URLs' statuses as they are now.
 */
export async function getCitationHealth(db: Kysely<DB>, f: Filters, engines: readonly { id: string; key: string }[]): Promise<CitationHealth> {
  const rows = (
    await sql<{ engine_id: string; url_id: string; total: number; last_seen: string; status: CitationStatus; url: string; subject_type: string | null; check_note: string | null }>`
      select c.engine_id, c.url_id, c.total, c.last_seen, u.status, u.url, u.subject_type, u.check_note
      from (${urlDaysTotals(f, { byEngine: true })}) c join cited_urls u on u.project_id = ${f.projectId} and u.id = c.url_id`.execute(db)
  ).rows;
  const overall = new Map<string, CitationStatus>();
  const perEngine = new Map<string, Map<string, CitationStatus>>();
  const own = new Map<string, CitationHealth['missingOwnPages'][number]>();
  const keyOf = new Map(engines.map((e) => [e.id, e.key]));
  for (const r of rows) {
    overall.set(r.url_id, r.status);
    let urls = perEngine.get(r.engine_id);
    if (!urls) perEngine.set(r.engine_id, (urls = new Map()));
    urls.set(r.url_id, r.status);
    if (r.subject_type === 'brand' && (r.status === 'hallucinated' || r.status === 'stale')) {
      let page = own.get(r.url_id);
      if (!page) own.set(r.url_id, (page = { url: r.url, status: r.status, citations: 0, engines: [], lastSeen: r.last_seen, note: r.check_note }));
      page.citations += r.total;
      page.engines.push(keyOf.get(r.engine_id) ?? r.engine_id);
      if (r.last_seen > page.lastSeen) page.lastSeen = r.last_seen;
    }
  }
  const order = new Map(engines.map((e, i) => [e.id, i]));
  return {
    overall: healthOf(overall),
    engines: [...perEngine.entries()]
      .sort(([a], [b]) => (order.get(a) ?? 99) - (order.get(b) ?? 99))
      .map(([engineId, urls]) => ({ engineId, engine: keyOf.get(engineId) ?? engineId, ...healthOf(urls) })),
    missingOwnPages: [...own.values()]
      .map((p) => ({ ...p, engines: [...new Set(p.engines)].sort((a, b) => (engines.findIndex((e) => e.key === a) - engines.findIndex((e) => e.key === b))) }))
      .sort((a, b) => b.citations - a.citations || (a.url < b.url ? -1 : 1)),
  };
}

function healthOf(urls: ReadonlyMap<string, CitationStatus>): Health {
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<CitationStatus, number>;
  for (const status of urls.values()) byStatus[status]++;
  const checked = urls.size - byStatus.unchecked;
  const share = (count: number): ShareOf => {
    const { low, high } = wilsonBounds(count, checked);
    return { count, share: checked > 0 ? round2((100 * count) / checked) : null, ciLow: round2(low), ciHigh: round2(high) };
  };
  return { urls: urls.size, byStatus, checked, hallucinated: share(byStatus.hallucinated), broken: share(byStatus.broken) };
}
