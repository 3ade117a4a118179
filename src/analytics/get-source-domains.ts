import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { classifySourceType } from '../runs/classify-url.ts';
import { ARTICLE_TYPES, type ArticleType, type SourceType } from '../runs/vocabulary.ts';
import { rollupWhere, type Filters } from './filters.ts';

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
 * in one completed run; its status is the URL's. Hallucinated citations count in `totalCount` and
 * `statusCounts` but not in `citedCount`; `urls` counts distinct URLs, hallucinated ones included.
 */
export async function getSourceDomains(
  db: Kysely<DB>,
  f: Filters,
  brandDomain: string,
  competitorDomains: string[],
): Promise<SourceDomain[]> {
  // Sum each URL's citations over the range first (one row per URL), then group the URLs by domain:
  // the join and the grouping see each URL once, not once per day.
  const byStatus = (status: string) => sql<number>`coalesce(sum(c.total) filter (where u.status = ${status}), 0)`;
  const perUrl = db
    .selectFrom('citation_rollup')
    .select((eb) => ['url_id', eb.fn.sum<number>('citations').as('total'), eb.fn.max('day').as('last_seen')])
    .where(rollupWhere('citation_rollup', f))
    .groupBy('url_id')
    .as('c');
  const rows = await db
    .selectFrom(perUrl)
    .innerJoin('cited_urls as u', 'u.id', 'c.url_id')
    .select((eb) => [
      'u.domain',
      eb.fn.sum<number>('c.total').as('total'),
      byStatus('verified').as('verified'),
      byStatus('broken').as('broken'),
      byStatus('hallucinated').as('hallucinated'),
      byStatus('unchecked').as('unchecked'),
      byStatus('stale').as('stale'),
      sql<number>`count(*)`.as('urls'),
      sql<string[]>`array_agg(distinct u.article_type)`.as('article_types'),
      eb.fn.max('c.last_seen').as('last_seen'),
    ])
    .where('u.project_id', '=', f.projectId)
    .groupBy('u.domain')
    .execute();
  const domains = rows.map((r): SourceDomain => {
    const statusCounts = {
      verified: Number(r.verified),
      broken: Number(r.broken),
      hallucinated: Number(r.hallucinated),
      unchecked: Number(r.unchecked),
      stale: Number(r.stale),
    };
    const total = Number(r.total);
    const present = new Set(r.article_types);
    return {
      domain: r.domain,
      citedCount: total - statusCounts.hallucinated,
      totalCount: total,
      statusCounts,
      urls: Number(r.urls),
      articleTypes: ARTICLE_TYPES.filter((t) => present.has(t)),
      lastSeen: String(r.last_seen),
      sourceType: classifySourceType(r.domain, brandDomain, competitorDomains),
    };
  });
  return domains.sort((a, b) => b.citedCount - a.citedCount || b.totalCount - a.totalCount || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}
