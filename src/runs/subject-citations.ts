import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { addSubjectDelta, emptyDeltas } from './cube-deltas.ts';
import { upsertRollups } from './upsert-rollups.ts';
import type { CitationStatus } from './vocabulary.ts';

/** Who a cited page belongs to, and its verification status (a hallucinated page's citations do not count for its subject). */
export interface UrlState {
  subjectId: string | null;
  status: CitationStatus;
}

export const stateOf = (url: { subject_id: string | null; status: string }): UrlState => ({
  subjectId: url.subject_id,
  status: url.status as CitationStatus,
});

/**
 * The subject-citation invariant, in one place: a run's citations of a subject are the pages it
 * cites (each once) that the subject owns and that are not hallucinated; the run "cites the
 * subject" when there is at least one. The import (cube-deltas.ts) and every change of a page's
 * owner or status (movePageCitations) derive `citations` and `citing_runs` from this function only.
 */
export function citationsBySubject<T>(pages: Iterable<T>, state: (page: T) => UrlState | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const page of pages) {
    const url = state(page);
    if (url?.subjectId && url.status !== 'hallucinated') out.set(url.subjectId, (out.get(url.subjectId) ?? 0) + 1);
  }
  return out;
}

/**
 * After pages changed owner (a competitor added later takes its pages) or crossed into or out of
 * `hallucinated` while owned: every completed run citing one of them is counted again under the
 * state before and after, and the difference moves in the subjects' citations and citing runs.
 * (Other status changes move nothing: the citations endpoint reads statuses as they are.) Call it
 * in the transaction that changed `cited_urls` (which holds the "after"), under the project lock,
 * before that transaction writes citations of its own. Its cost is the changed pages' citations.
 * Returns the days whose numbers it moved (for change detection).
 */
export async function movePageCitations(
  tx: Transaction<DB>,
  projectId: string,
  changes: ReadonlyMap<string, { before: UrlState; after: UrlState }>,
  /** Runs already counted with the state after (the batch writing the change). */
  exclude: ReadonlySet<string> = new Set(),
): Promise<Set<string>> {
  const hallucinated = (s: UrlState) => s.status === 'hallucinated';
  const changed = [...changes.entries()].filter(
    ([, c]) => c.before.subjectId !== c.after.subjectId || (c.after.subjectId !== null && hallucinated(c.before) !== hallucinated(c.after)),
  );
  const days = new Set<string>();
  if (changed.length === 0) return days;
  // The completed runs citing a changed page (the GIN index on cited_url_ids), with every page they cite.
  const runs = new Map<string, { engine_id: string; topic_id: string | null; location: string; branded: boolean; day: string; cited_url_ids: string[] }>();
  for (let i = 0; i < changed.length; i += 1_000) {
    const ids = changed.slice(i, i + 1_000).map(([id]) => id);
    const rows = await sql<{ id: string; engine_id: string; topic_id: string | null; location: string; branded: boolean; day: string; cited_url_ids: string[] }>`
      select id, engine_id, topic_id, location, branded, day, cited_url_ids from runs
      where project_id = ${projectId} and status = 'ok' and cardinality(cited_url_ids) > 0 and cited_url_ids && ${ids}::uuid[]`.execute(tx);
    for (const row of rows.rows) if (!exclude.has(row.id)) runs.set(row.id, row);
  }
  const pageIds = [...new Set([...runs.values()].flatMap((r) => r.cited_url_ids))];
  const pages = new Map<string, UrlState>();
  for (let i = 0; i < pageIds.length; i += 5_000) {
    const rows = await sql<{ id: string; subject_id: string | null; status: string }>`
      select id, subject_id, status from cited_urls where project_id = ${projectId} and id = any(${pageIds.slice(i, i + 5_000)}::uuid[])`.execute(tx);
    for (const row of rows.rows) pages.set(row.id, stateOf(row));
  }
  const deltas = emptyDeltas();
  for (const run of runs.values()) {
    const dims = { engineId: run.engine_id, topicId: run.topic_id, location: run.location, branded: run.branded, day: run.day };
    const before = citationsBySubject(run.cited_url_ids, (u) => changes.get(u)?.before ?? pages.get(u));
    const after = citationsBySubject(run.cited_url_ids, (u) => pages.get(u));
    for (const subjectId of new Set([...before.keys(), ...after.keys()])) {
      const b = before.get(subjectId) ?? 0;
      const a = after.get(subjectId) ?? 0;
      if (a !== b) {
        addSubjectDelta(deltas, dims, subjectId, { citations: a - b, citing_runs: Number(a > 0) - Number(b > 0) });
        days.add(run.day);
      }
    }
  }
  await upsertRollups(tx, projectId, deltas);
  return days;
}
