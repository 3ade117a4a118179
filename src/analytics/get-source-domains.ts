import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { classifySourceType } from '../runs/classify-url.ts';
import { URL_GROUPINGS } from '../runs/rollup-cube.ts';
import { ARTICLE_TYPES, type ArticleType, type CitationStatus, type SourceType } from '../runs/vocabulary.ts';
import { addDays, rollupWhere, type Filters } from './filters.ts';

export interface SourceDomain {
  domain: string;
  citedCount: number;
  totalCount: number;
  statusCounts: { verified: number; broken: number; hallucinated: number; unchecked: number; stale: number };
  urls: number;
  articleTypes: ArticleType[];
  lastSeen: string;
  sourceType: SourceType;
}

/**
 * Domains cited in the range (registrable domains), most cited first. A citation is one cited URL
 * in one completed run; its status is the URL's, as it is now (so a status change moves nothing
 * stored). Hallucinated citations count in `totalCount` and `statusCounts` but not in
 * `citedCount`; `urls` counts distinct URLs cited in the range, hallucinated ones included.
 *
 * One read of `url_days` for the filters' cells and the range's months (URLs x months rows,
 * whatever the runs stored), each row cut to the range's days, joined with the URLs.
 */
export async function getSourceDomains(db: Kysely<DB>, f: Filters, brandDomain: string, competitorDomains: string[]): Promise<SourceDomain[]> {
  const months = monthSpans(f.from, f.to);
  const slice = sql`case d.month ${sql.join(months.map((m) => sql`when ${m.month}::date then d.counts[${m.first}:${m.last}]`), sql` `)} end`;
  const firstDay = sql`case d.month ${sql.join(months.map((m) => sql`when ${m.month}::date then ${m.first}::int`), sql` `)} end`;
  const rows = await sql<{ url_id: string; domain: string; status: string; article_type: string; total: number; last_seen: string }>`
    select u.id as url_id, u.domain, u.status, u.article_type, sum(c.total)::int as total, max(c.last_seen)::text as last_seen
    from (
      select d.url_id,
        (select sum(n) from unnest(${slice}) n) as total,
        d.month + (${firstDay} + (select max(i)::int from unnest(${slice}) with ordinality as z(n, i) where n > 0) - 2) as last_seen
      from url_days d
      where ${rollupWhere('d', f, URL_GROUPINGS, false)} and d.month in (${sql.join(months.map((m) => sql`${m.month}::date`))})
    ) c
    join cited_urls u on u.project_id = ${f.projectId} and u.id = c.url_id
    where c.total > 0
    group by u.id, u.domain, u.status, u.article_type`.execute(db);

  interface Domain {
    statusCounts: SourceDomain['statusCounts'];
    urls: number;
    types: Set<string>;
    lastSeen: string;
  }
  const domains = new Map<string, Domain>();
  for (const r of rows.rows) {
    let d = domains.get(r.domain);
    if (!d) {
      d = { statusCounts: { verified: 0, broken: 0, hallucinated: 0, unchecked: 0, stale: 0 }, urls: 0, types: new Set(), lastSeen: '' };
      domains.set(r.domain, d);
    }
    d.statusCounts[r.status as CitationStatus] += Number(r.total);
    d.urls++;
    d.types.add(r.article_type);
    if (r.last_seen > d.lastSeen) d.lastSeen = r.last_seen;
  }
  const out = [...domains.entries()].map(([domain, d]): SourceDomain => {
    const total = Object.values(d.statusCounts).reduce((s, n) => s + n, 0);
    return {
      domain,
      citedCount: total - d.statusCounts.hallucinated,
      totalCount: total,
      statusCounts: d.statusCounts,
      urls: d.urls,
      articleTypes: ARTICLE_TYPES.filter((t) => d.types.has(t)),
      lastSeen: d.lastSeen,
      sourceType: classifySourceType(domain, brandDomain, competitorDomains),
    };
  });
  return out.sort((a, b) => b.citedCount - a.citedCount || b.totalCount - a.totalCount || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}

/** The months the range touches, each with the first and last of its days inside the range (1-based). */
function monthSpans(from: string, to: string): { month: string; first: number; last: number }[] {
  const out: { month: string; first: number; last: number }[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) {
    const month = `${day.slice(0, 8)}01`;
    const d = Number(day.slice(8, 10));
    const current = out.at(-1);
    if (current?.month === month) current.last = d;
    else out.push({ month, first: d, last: d });
  }
  return out;
}
