import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { detectPendingChanges } from '../changes/detect-changes.ts';
import { queueDetection } from '../changes/queue-detection.ts';
import { lockProject } from '../db/lock-project.ts';
import { ConflictError } from '../http/errors.ts';
import { backfillSubject } from '../runs/backfill-subject.ts';
import { loadProjectSubjects } from '../runs/load-project-subjects.ts';
import { citedSubject } from '../runs/resolve-run.ts';
import { movePageCitations, stateOf, type UrlState } from '../runs/subject-citations.ts';
import { markProjectChanged } from './mark-project-changed.ts';
import { validateSubject, type SubjectInput } from './subject-fields.ts';

/**
 * Tracks a rival of the project's brand (the brand's own domain cannot be a competitor's), under
 * the project lock so no batch of runs is half-written across the moment it starts being tracked:
 * - the runs recorded from now on track it;
 * - pages already cited under its domain that it now owns (it is more specific than their owner,
 *   or they had none) pass to it with their past citations (subject-citations.ts);
 * - the runs recorded before, where they kept their answer text, are searched for it
 *   (backfill-subject.ts), so its history is real where it can be; the rest of its past stays
 *   "not sampled yet". The search runs before this returns (resumed by the server if cut short),
 *   and the change events of the days it touched are detected.
 */
export async function addCompetitor(db: Kysely<DB>, projectId: string, input: SubjectInput): Promise<{ id: string }> {
  const { id } = await db.transaction().execute((tx) => insertCompetitor(tx, projectId, input));
  await backfillSubject(db, projectId, id);
  await detectPendingChanges(db, projectId);
  return { id };
}

/** The competitor, its pages and its backfill job, in the caller's transaction (taking the project lock). */
export async function insertCompetitor(tx: Transaction<DB>, projectId: string, input: SubjectInput): Promise<{ id: string }> {
  const fields = validateSubject(input);
  const id = randomUUID();
  await lockProject(tx, projectId);
  const { workspaceId, subjects } = await loadProjectSubjects(tx, projectId);
  if (subjects.some((s) => s.domain === fields.domain)) throw new ConflictError(`${fields.domain} is already tracked in this project`);
  await tx.insertInto('competitors').values({ id, workspace_id: workspaceId, project_id: projectId, ...fields }).execute();
  // Every completed run recorded so far did not track it: its sample starts empty, everywhere.
  await sql`insert into subject_rollup (project_id, grouping, engine_id, topic_id, location, branded, day, subject_id,
      untracked_runs, mention_runs, mentions, position_sum, position_count, sentiment_sum, sentiment_count, citations, citing_runs)
    select project_id, grouping, engine_id, topic_id, location, branded, day, ${id}::uuid, ok_runs, 0, 0, 0, 0, 0, 0, 0, 0
    from run_rollup where project_id = ${projectId} and ok_runs > 0`.execute(tx);
  // Runs recorded before this moment did not track it; those with answer text will be searched.
  // (Compared in SQL: timestamps keep their microseconds there.)
  await sql`insert into subject_backfills (project_id, subject_id, until)
    select ${projectId}, c.id, c.created_at from competitors c
    where c.id = ${id} and exists (
      select 1 from runs r where r.project_id = ${projectId} and r.answer is not null and r.created_at < c.created_at)`.execute(tx);

  const all = [...subjects, { type: 'competitor' as const, id, ...fields }];
  const candidates = await tx
    .selectFrom('cited_urls')
    .select(['id', 'host', 'status', 'subject_id'])
    .where('project_id', '=', projectId)
    .where((eb) => eb.or([eb('host', '=', fields.domain), eb('host', 'like', `%.${fields.domain}`)]))
    .execute();
  const changes = new Map<string, { before: UrlState; after: UrlState }>();
  const taken: string[] = [];
  for (const url of candidates) {
    if (citedSubject(all, url.host)?.id !== id) continue;
    taken.push(url.id);
    changes.set(url.id, { before: stateOf(url), after: stateOf({ subject_id: id, status: url.status }) });
  }
  if (taken.length) {
    await tx.updateTable('cited_urls').set({ subject_type: 'competitor', subject_id: id }).where('project_id', '=', projectId).where('id', 'in', taken).execute();
    await movePageCitations(tx, projectId, changes);
    // Its citing share changed on the days those pages were cited.
    const days = await sql<{ day: string }>`select distinct day from runs
      where project_id = ${projectId} and cardinality(cited_url_ids) > 0 and cited_url_ids && ${taken}::uuid[]`.execute(tx);
    await queueDetection(tx, projectId, days.rows.map((d) => d.day));
  }
  await markProjectChanged(tx, projectId);
  return { id };
}
