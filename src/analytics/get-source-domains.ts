import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import { PREPARE_MARK } from '../db/prepared.ts';
import { classifySourceType } from '../runs/classify-url.ts';
import { cellFor, URL_GROUPINGS } from '../runs/rollup-cube.ts';
import { ARTICLE_TYPES, type ArticleType, type CitationStatus, type SourceType } from '../runs/vocabulary.ts';
import { detailWhere, type Filters } from './filters.ts';
import { urlDaysTotals } from './url-days-totals.ts';

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
 * One read per request, whatever the runs stored: with no filter or one, `url_days` for the filter's
 * cell and the range's months (URLs x months rows; per row, the range's citations are a difference
 * of running totals and its last cited day the first day the total reached its value); with two
 * filters or more, `cell_pages` for the matching detail cells and the range's days. Joined with
 * the URLs for their domain, status and type.
 */
export async function getSourceDomains(db: Kysely<DB>, f: Filters, brandDomain: string, competitorDomains: string[]): Promise<SourceDomain[]> {
  const perUrl = URL_GROUPINGS.has(cellFor(f).grouping) ? urlDaysTotals(f) : fromCellPages(f);
  // Per domain and status (a page has one status): its pages, citations, types and last day cited.
  const rows = await sql<{ domain: string; status: CitationStatus; urls: number; total: number; types: string[]; last_seen: string }>`${sql.raw(PREPARE_MARK)}
    select u.domain, u.status, count(*)::int as urls, sum(c.total)::int as total, array_agg(distinct u.article_type) as types, max(c.last_seen)::text as last_seen
    from (${perUrl}) c join cited_urls u on u.project_id = ${f.projectId} and u.id = c.url_id
    group by u.domain, u.status`.execute(db);

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
    d.statusCounts[r.status] += r.total;
    d.urls += r.urls;
    for (const type of r.types) d.types.add(type);
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

/** The same from the detail cells matching two filters or more, day by day. */
function fromCellPages(f: Filters): RawBuilder<unknown> {
  return sql`
    select x.url_id, sum(x.n)::int as total, max(p.day)::text as last_seen
    from cell_pages p cross join lateral unnest(p.url_ids, p.counts) as x(url_id, n)
    where ${detailWhere('p', f)}
    group by x.url_id
    having sum(x.n) > 0`;
}
