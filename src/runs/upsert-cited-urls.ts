import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { registrableDomain } from './classify-url.ts';
import type { ResolvedCitation, ResolvedRun } from './resolve-run.ts';
import { moveSubjectCitations, ownershipOf, type UrlOwnership } from './subject-citations.ts';

/** A cited page as the batch leaves it. */
export interface CitedUrl {
  id: string;
  ownership: UrlOwnership;
}

/**
 * The cited pages of a batch's completed runs, one row per page and project. A page's status is
 * its own: the latest observation by run time wins, whatever the order of import. A page whose
 * status crosses into or out of `hallucinated` moves its past citations (subject-citations.ts).
 * Call before the batch's own citations are written: the recount covers the runs recorded before.
 */
export async function upsertCitedUrls(
  tx: Transaction<DB>,
  context: { workspaceId: string; projectId: string },
  runs: readonly ResolvedRun[],
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
  const changes = new Map<string, { before: UrlOwnership; after: UrlOwnership }>();
  for (let i = 0; i < entries.length; i += 1_000) {
    const part = entries.slice(i, i + 1_000);
    const before = new Map(
      (
        await tx
          .selectFrom('cited_urls')
          .select(['url', 'status', 'subject_id'])
          .where('project_id', '=', context.projectId)
          .where('url', 'in', part.map(([url]) => url))
          .execute()
      ).map((r) => [r.url, ownershipOf(r)]),
    );
    const rows = await tx
      .insertInto('cited_urls')
      .values(
        part.map(([url, { citation, at }]) => ({
          id: randomUUID(),
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
      const after = ownershipOf(row);
      urls.set(row.url, { id: row.id, ownership: after });
      const was = before.get(row.url);
      if (was && was.counted !== after.counted) changes.set(row.id, { before: was, after });
    }
  }
  await moveSubjectCitations(tx, context.projectId, changes);
  return urls;
}
