import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { addSubjectDelta, emptyDeltas } from './cube-deltas.ts';
import { upsertRollups } from './upsert-rollups.ts';

/** Who a cited page belongs to, and whether its citations count (a hallucinated page's do not). */
export interface UrlOwnership {
  subjectId: string | null;
  counted: boolean;
}

export const ownershipOf = (url: { subject_id: string | null; status: string }): UrlOwnership => ({
  subjectId: url.subject_id,
  counted: url.status !== 'hallucinated',
});

/**
 * The subject-citation invariant, in one place: a run's citations of a subject are the pages it
 * cites (each once) that the subject owns and that count; the run "cites the subject" when there is
 * at least one. The import (cube-deltas.ts) and every change of a page's owner or status
 * (moveSubjectCitations) derive a subject's `citations` and `citing_runs` from this function only.
 */
export function citationsBySubject(urlIds: Iterable<string>, ownership: (urlId: string) => UrlOwnership | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const urlId of urlIds) {
    const owner = ownership(urlId);
    if (owner?.subjectId && owner.counted) out.set(owner.subjectId, (out.get(owner.subjectId) ?? 0) + 1);
  }
  return out;
}

/**
 * After pages changed owner (a competitor added later takes its pages) or crossed into or out of
 * `hallucinated`: every completed run citing one of them is counted again, under the ownership
 * before and after, and the difference moves in the subjects' rollup cells. Call it in the
 * transaction that changed `cited_urls` (which holds the "after"), under the project lock.
 */
export async function moveSubjectCitations(
  tx: Transaction<DB>,
  projectId: string,
  changes: ReadonlyMap<string, { before: UrlOwnership; after: UrlOwnership }>,
): Promise<void> {
  const changed = [...changes.entries()].filter(
    ([, c]) => c.before.subjectId !== c.after.subjectId || (c.before.subjectId !== null && c.before.counted !== c.after.counted),
  );
  if (changed.length === 0) return;
  const runIds = new Set<string>();
  for (let i = 0; i < changed.length; i += 1_000) {
    const ids = changed.slice(i, i + 1_000).map(([id]) => id);
    const rows = await sql<{ run_id: string }>`select distinct run_id from run_citations
      where project_id = ${projectId} and url_id in (${sql.join(ids)})`.execute(tx);
    for (const row of rows.rows) runIds.add(row.run_id);
  }
  const deltas = emptyDeltas();
  const sortedRuns = [...runIds].sort();
  for (let i = 0; i < sortedRuns.length; i += 1_000) {
    const rows = await sql<{
      run_id: string;
      engine_id: string;
      topic_id: string | null;
      location: string;
      branded: boolean;
      day: string;
      url_id: string;
      subject_id: string | null;
      status: string;
    }>`select r.id as run_id, r.engine_id, r.topic_id, r.location, r.branded, r.day, rc.url_id, u.subject_id, u.status
      from runs r
      join run_citations rc on rc.project_id = r.project_id and rc.run_id = r.id
      join cited_urls u on u.id = rc.url_id
      where r.project_id = ${projectId} and r.status = 'ok' and r.id in (${sql.join(sortedRuns.slice(i, i + 1_000))})`.execute(tx);
    const runs = new Map<string, { dims: (typeof rows.rows)[number]; urls: Map<string, UrlOwnership> }>();
    for (const row of rows.rows) {
      const run = runs.get(row.run_id) ?? { dims: row, urls: new Map() };
      runs.set(row.run_id, run);
      run.urls.set(row.url_id, ownershipOf(row));
    }
    for (const run of runs.values()) {
      const before = citationsBySubject(run.urls.keys(), (u) => changes.get(u)?.before ?? run.urls.get(u));
      const after = citationsBySubject(run.urls.keys(), (u) => run.urls.get(u));
      const dims = { engineId: run.dims.engine_id, topicId: run.dims.topic_id, location: run.dims.location, branded: run.dims.branded, day: run.dims.day };
      for (const subjectId of new Set([...before.keys(), ...after.keys()])) {
        const b = before.get(subjectId) ?? 0;
        const a = after.get(subjectId) ?? 0;
        if (a !== b) addSubjectDelta(deltas, dims, subjectId, { citations: a - b, citing_runs: Number(a > 0) - Number(b > 0) });
      }
    }
  }
  await upsertRollups(tx, projectId, deltas);
}
