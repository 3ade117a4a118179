import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { queueDetection } from '../changes/queue-detection.ts';
import { lockProject } from '../db/lock-project.ts';
import { addRun, emptyDeltas } from './cube-deltas.ts';
import { loadProjectSubjects } from './load-project-subjects.ts';
import type { RunRecord } from './parse-run-line.ts';
import { resolveRun, type ResolvedRun } from './resolve-run.ts';
import { citationsBySubject } from './subject-citations.ts';
import { pageIdsOf, upsertCitedUrls } from './upsert-cited-urls.ts';
import { upsertRollups } from './upsert-rollups.ts';
import { ensureNames, insertRuns, topicOf } from './write-runs.ts';
import { markProjectChanged } from '../projects/mark-project-changed.ts';

export interface RecordResult {
  /** Runs written. */
  landed: number;
  /** Runs whose id the project already held (or that repeat an id earlier in the batch). */
  skipped: number;
  /** Runs refused, by their index in the batch, with the reason. */
  rejected: { index: number; message: string }[];
}

/**
 * The one write path of runs, imported or sampled: a batch in one transaction, under the project
 * lock, through named steps:
 * 1. resolve each run against the subjects tracked now (resolve-run.ts);
 * 2. write the runs with what they contain (write-runs.ts), then the pages they cite (upsert-cited-urls.ts);
 * 3. sum their rollup deltas in memory (cube-deltas.ts, subject citations by subject-citations.ts);
 * 4. upsert the rollups (upsert-rollups.ts);
 * 5. queue their days for change detection (queue-detection.ts), and move the project's data
 *    version (read caches key on it).
 * A crash at any point leaves all of the batch or none of it.
 */
export async function recordRuns(db: Kysely<DB>, projectId: string, records: readonly RunRecord[]): Promise<RecordResult> {
  return db.transaction().execute((tx) => recordRunsIn(tx, projectId, records));
}

/** recordRuns in the caller's transaction. */
export async function recordRunsIn(tx: Transaction<DB>, projectId: string, records: readonly RunRecord[]): Promise<RecordResult> {
  await lockProject(tx, projectId);
  const project = await loadProjectSubjects(tx, projectId);
  const engines = new Map((await tx.selectFrom('engines').select(['id', 'key']).execute()).map((e) => [e.key, e.id]));
  const context = { workspaceId: project.workspaceId, projectId, engines };

  const result: RecordResult = { landed: 0, skipped: 0, rejected: [] };
  const resolved: ResolvedRun[] = [];
  const ids = new Set<string>();
  for (const [index, record] of records.entries()) {
    const id = record.id ?? randomUUID();
    if (ids.has(id)) {
      result.skipped++;
      continue;
    }
    const run = resolveRun(record, id, project.subjects);
    if (typeof run === 'string') {
      result.rejected.push({ index, message: run });
      continue;
    }
    ids.add(id);
    resolved.push(run);
  }

  const names = await ensureNames(tx, context, resolved);
  const pageIds = await pageIdsOf(tx, projectId, resolved);
  const landed = await insertRuns(tx, context, resolved, names, pageIds);
  result.landed = landed.length;
  result.skipped += resolved.length - landed.length;
  const urls = await upsertCitedUrls(tx, context, landed.filter((r) => r.record.status === 'ok'), pageIds);

  const deltas = emptyDeltas();
  for (const run of landed) {
    const pages = run.citations.map((c) => urls.get(c.url)).filter((u) => u !== undefined);
    const states = new Map(pages.map((p) => [p.id, p.state]));
    addRun(deltas, {
      dims: { engineId: engines.get(run.record.engine)!, topicId: topicOf(names, run.record.topic), location: run.record.location, branded: run.record.branded, day: run.record.day },
      status: run.record.status,
      mentions: run.mentions.map((m) => ({ subjectId: m.subject.id, count: m.count, position: m.position, sentiment: m.sentiment })),
      pages: pages.map((p) => p.id),
      subjectCitations: citationsBySubject(states.keys(), (id) => states.get(id)),
    });
  }
  await upsertRollups(tx, projectId, deltas);
  await queueDetection(tx, projectId, landed.map((r) => r.record.day));
  if (landed.length > 0) await markProjectChanged(tx, projectId);
  return result;
}
