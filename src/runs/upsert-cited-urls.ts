import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { registrableDomain } from './classify-url.ts';
import type { ResolvedCitation, ResolvedRun } from './resolve-run.ts';
import { movePageCitations, stateOf, type UrlState } from './subject-citations.ts';

/** A cited page as the batch leaves it. */
export interface CitedUrl {
  id: string;
  state: UrlState;
}

/** The pages a batch cites, by normalised URL: the project's row id, or a new id, and the state stored before the batch. */
export type PageIds = Map<string, { id: string; before: UrlState | undefined }>;

/**
 * The ids of the pages the batch's runs cite: those the project holds (read once, with their
 * state), new ones made up for the rest, so the runs can be written with their citations before
 * the pages are. Under the project lock no other writer adds a page meanwhile.
 */
export async function pageIdsOf(tx: Transaction<DB>, projectId: string, runs: readonly ResolvedRun[]): Promise<PageIds> {
  const urls = [...new Set(runs.flatMap((r) => r.citations.map((c) => c.url)))];
  const ids: PageIds = new Map();
  for (let i = 0; i < urls.length; i += 5_000) {
    const rows = await sql<{ id: string; url: string; status: string; subject_id: string | null }>`
      select id, url, status, subject_id from cited_urls where project_id = ${projectId} and url = any(${urls.slice(i, i + 5_000)}::text[])`.execute(tx);
    for (const row of rows.rows) ids.set(row.url, { id: row.id, before: stateOf(row) });
  }
  for (const url of urls) if (!ids.has(url)) ids.set(url, { id: randomUUID(), before: undefined });
  return ids;
}

/**
 * The pages the batch's completed runs cite, one row per page and project. A page's status is its
 * own: the latest observation by run time wins, whatever the order of import. A page whose status
 * changes moves its past citations where they count for a subject (subject-citations.ts); the
 * batch's own runs (already written, counted with the state after) are left out of that recount.
 */
export async function upsertCitedUrls(
  tx: Transaction<DB>,
  context: { workspaceId: string; projectId: string },
  runs: readonly ResolvedRun[],
  ids: PageIds,
): Promise<Map<string, CitedUrl>> {
  const latest = new Map<string, { citation: ResolvedCitation; at: Date }>();
  for (const run of runs) {
    for (const citation of run.citations) {
      const seen = latest.get(citation.url);
      // The status: the latest observation wins. The display form and type: the first seen.
      if (!seen) latest.set(citation.url, { citation, at: run.record.ranAt });
      else if (run.record.ranAt >= seen.at) latest.set(citation.url, { citation: { ...seen.citation, status: citation.status }, at: run.record.ranAt });
    }
  }
  const urls = new Map<string, CitedUrl>();
  const entries = [...latest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const changes = new Map<string, { before: UrlState; after: UrlState }>();
  for (let i = 0; i < entries.length; i += 1_000) {
    const rows = await tx
      .insertInto('cited_urls')
      .values(
        entries.slice(i, i + 1_000).map(([url, { citation, at }]) => ({
          id: ids.get(url)!.id,
          workspace_id: context.workspaceId,
          project_id: context.projectId,
          url,
          display_url: citation.rawUrl,
          host: citation.host,
          domain: registrableDomain(citation.host),
          article_type: citation.articleType,
          status: citation.status,
          status_at: at,
          subject_type: citation.owner?.type ?? null,
          subject_id: citation.owner?.id ?? null,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['project_id', 'url']).doUpdateSet({
          status: sql`case when excluded.status_at >= cited_urls.status_at then excluded.status else cited_urls.status end`,
          status_at: sql`greatest(excluded.status_at, cited_urls.status_at)`,
        }),
      )
      .returning(['id', 'url', 'status', 'subject_id'])
      .execute();
    for (const row of rows) {
      const after = stateOf(row);
      urls.set(row.url, { id: row.id, state: after });
      const before = ids.get(row.url)?.before;
      if (before && before.status !== after.status) changes.set(row.id, { before, after });
    }
  }
  await movePageCitations(tx, context.projectId, changes, new Set(runs.map((r) => r.id)));
  return urls;
}
