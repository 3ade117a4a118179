import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { SubjectRow } from '../analytics/list-subjects.ts';
import { RUN_COLUMNS, summaryOf, UNTRACKED, type RunSummary } from './list-runs.ts';

export interface RunDetail extends RunSummary {
  answer: string | null;
  /** The pages the answer cites, in order, with what is known of each now. */
  citations: { url: string; displayUrl: string; domain: string; status: string; articleType: string; subjectType: 'brand' | 'competitor' | null; subjectId: string | null }[];
  ads: { advertiser: string; url: string | null; competitorId: string | null }[];
  /** Pages the engine retrieved (cited or not), where the provider reports them. */
  sources: string[];
  fanOutQueries: string[];
  latencyMs: number | null;
  costUsd: number | null;
  /** Why a run failed or had no answer, where known. */
  reason: string | null;
  checkId: string | null;
}

/** One run with everything behind it: its answer, the pages it cites, its ads and how it was captured. */
export async function getRun(db: Kysely<DB>, projectId: string, runId: string, subjects: readonly SubjectRow[]): Promise<RunDetail | undefined> {
  const row = await db
    .selectFrom('runs as r')
    .innerJoin('prompts as p', (join) => join.onRef('p.project_id', '=', 'r.project_id').onRef('p.id', '=', 'r.prompt_id'))
    .innerJoin('engines as e', 'e.id', 'r.engine_id')
    .select([...RUN_COLUMNS, 'r.answer', 'r.source_urls', 'r.fan_out_queries', 'r.latency_ms', 'r.cost_usd', 'r.reason'])
    .select(UNTRACKED)
    .select(sql<string>`r.day::text`.as('day'))
    .where('r.project_id', '=', projectId)
    .where('r.id', '=', runId)
    .executeTakeFirst();
  if (!row) return undefined;
  const pages = row.cited_url_ids.length
    ? await db
        .selectFrom('cited_urls')
        .select(['id', 'url', 'display_url', 'domain', 'status', 'article_type', 'subject_type', 'subject_id'])
        .where('project_id', '=', projectId)
        .where('id', 'in', row.cited_url_ids)
        .execute()
    : [];
  const byId = new Map(pages.map((p) => [p.id, p]));
  const ads = await db.selectFrom('run_ads').select(['advertiser', 'url', 'competitor_id']).where('project_id', '=', projectId).where('run_id', '=', runId).orderBy('ordinal').execute();
  return {
    ...summaryOf(row as Parameters<typeof summaryOf>[0], subjects),
    answer: row.answer,
    citations: row.cited_url_ids.flatMap((id) => {
      const p = byId.get(id);
      return p ? [{ url: p.url, displayUrl: p.display_url, domain: p.domain, status: p.status, articleType: p.article_type, subjectType: p.subject_type, subjectId: p.subject_id }] : [];
    }),
    ads: ads.map((a) => ({ advertiser: a.advertiser, url: a.url, competitorId: a.competitor_id })),
    sources: row.source_urls ?? [],
    fanOutQueries: row.fan_out_queries ?? [],
    latencyMs: row.latency_ms,
    costUsd: row.cost_usd,
    reason: row.reason,
    checkId: row.check_id,
  };
}
