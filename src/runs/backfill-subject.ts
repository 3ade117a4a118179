import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DB } from '../db/types.ts';
import { queueDetection } from '../changes/queue-detection.ts';
import { lockProject } from '../db/lock-project.ts';
import { addRunDelta, addSubjectDelta, emptyDeltas } from './cube-deltas.ts';
import { loadProjectSubjects } from './load-project-subjects.ts';
import { findMentions } from './subjects.ts';
import { upsertRollups } from './upsert-rollups.ts';

/**
 * A competitor added after runs were recorded has no sample in them: their days are "not sampled
 * yet" for it. Where a run kept its answer text, the answer is searched for the new subject (names,
 * aliases, domain, as at import), and the run joins its sample, mention or not: its history becomes
 * real rather than missing. Runs without answer text stay outside its sample. A found mention's
 * position is its place among all subjects found in the answer; its sentiment is not scored.
 *
 * Batches of runs in (created_at, id) order, each in one transaction under the project lock that
 * moves the cursor, so an interrupted backfill resumes where it stopped and never counts a run twice.
 */
export async function backfillSubject(db: Kysely<DB>, projectId: string, subjectId: string, batchSize = 500): Promise<{ searched: number; found: number }> {
  let searched = 0;
  let found = 0;
  for (;;) {
    const more = await db.transaction().execute(async (tx) => {
      await lockProject(tx, projectId);
      const job = await tx
        .selectFrom('subject_backfills')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('subject_id', '=', subjectId)
        .where('done_at', 'is', null)
        .executeTakeFirst();
      if (!job) return false;
      // The cursor and the bound are compared in SQL: timestamps keep their microseconds there.
      const rows = await tx
        .selectFrom('runs as r')
        .innerJoin('subject_backfills as b', (join) => join.onRef('b.project_id', '=', 'r.project_id').on('b.subject_id', '=', subjectId))
        .select(['r.id', 'r.engine_id', 'r.topic_id', 'r.location', 'r.branded', 'r.day', 'r.answer'])
        .where('r.project_id', '=', projectId)
        .where('r.status', '=', 'ok')
        .where('r.answer', 'is not', null)
        .whereRef('r.created_at', '<', 'b.until')
        .where(sql<boolean>`(b.after_created_at is null or (r.created_at, r.id) > (b.after_created_at, b.after_run_id))`)
        .orderBy('r.created_at')
        .orderBy('r.id')
        .limit(batchSize)
        .execute();
      if (rows.length === 0) {
        await tx.updateTable('subject_backfills').set({ done_at: sql`clock_timestamp()` }).where('project_id', '=', projectId).where('subject_id', '=', subjectId).execute();
        return false;
      }
      const { subjects } = await loadProjectSubjects(tx, projectId);
      const subject = subjects.find((s) => s.id === subjectId);
      const deltas = emptyDeltas();
      const mentions = [];
      const days = new Set<string>();
      for (const row of rows) {
        if (!subject || row.answer === null) continue;
        searched++;
        days.add(row.day);
        const dims = { engineId: row.engine_id, topicId: row.topic_id, location: row.location, branded: row.branded, day: row.day };
        addSubjectDelta(deltas, dims, subjectId, { tracked_runs: 1 });
        const mention = findMentions(row.answer, subjects).find((m) => m.subject.id === subjectId);
        if (!mention) continue;
        found++;
        mentions.push({ run_id: row.id, project_id: projectId, subject_type: subject.type, subject_id: subjectId, position: mention.position, sentiment: null, count: mention.count });
        addSubjectDelta(deltas, dims, subjectId, { mention_runs: 1, mentions: mention.count, position_sum: mention.position, position_count: 1 });
        addRunDelta(deltas, dims, { mentions: mention.count });
      }
      if (mentions.length) await tx.insertInto('run_mentions').values(mentions).onConflict((oc) => oc.doNothing()).execute();
      await upsertRollups(tx, projectId, deltas);
      await queueDetection(tx, projectId, days);
      await sql`update subject_backfills b set after_created_at = r.created_at, after_run_id = r.id
        from runs r where r.project_id = ${projectId} and r.id = ${rows.at(-1)!.id}
          and b.project_id = ${projectId} and b.subject_id = ${subjectId}`.execute(tx);
      return true;
    });
    if (!more) return { searched, found };
  }
}

/** Backfills left unfinished (a crash, a stop): the server resumes them. */
export async function resumeBackfills(db: Kysely<DB>): Promise<number> {
  const jobs = await db.selectFrom('subject_backfills').select(['project_id', 'subject_id']).where('done_at', 'is', null).limit(20).execute();
  for (const job of jobs) await backfillSubject(db, job.project_id, job.subject_id);
  return jobs.length;
}
