import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { DB } from '../db/types.ts';
import { queueDetection } from '../changes/queue-detection.ts';
import { lockProject } from '../db/lock-project.ts';
import { addRunDelta, addSubjectDelta, emptyDeltas } from './cube-deltas.ts';
import { loadProjectSubjects } from './load-project-subjects.ts';
import { findMentions } from './subjects.ts';
import { upsertRollups } from './upsert-rollups.ts';
import { markProjectChanged } from '../projects/mark-project-changed.ts';

/**
 * A competitor added after runs were recorded has no sample in them: their days are "not sampled
 * yet" for it. Where a run kept its answer text, the answer is searched for the new subject (names,
 * aliases, domain, as at import), and the run joins its sample, mention or not: its history becomes
 * real rather than missing. Runs without answer text stay outside its sample. A found mention's
 * position is its place among all subjects found in the answer; its sentiment is not scored.
 *
 * Batches of the runs recorded before it (in id order: the primary key's), each in one
 * transaction under the project lock that moves the cursor, so an interrupted backfill resumes
 * where it stopped and never counts a run twice.
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
        .where(sql<boolean>`(b.after_run_id is null or r.id > b.after_run_id)`)
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
      const mentions: { runId: string; position: number; count: number }[] = [];
      const days = new Set<string>();
      for (const row of rows) {
        if (!subject || row.answer === null) continue;
        searched++;
        days.add(row.day);
        const dims = { engineId: row.engine_id, topicId: row.topic_id, location: row.location, branded: row.branded, day: row.day };
        addSubjectDelta(deltas, dims, subjectId, { untracked_runs: -1 });
        const mention = findMentions(row.answer, subjects).find((m) => m.subject.id === subjectId);
        if (!mention) continue;
        found++;
        mentions.push({ runId: row.id, position: mention.position, count: mention.count });
        addSubjectDelta(deltas, dims, subjectId, { mention_runs: 1, mentions: mention.count, position_sum: mention.position, position_count: 1 });
        addRunDelta(deltas, dims, { mentions: mention.count });
      }
      if (mentions.length) {
        // The mention joins the run's own arrays (no sentiment: not scored).
        await sql`update runs r set mention_subject_ids = r.mention_subject_ids || ${subjectId}::uuid,
            mention_positions = r.mention_positions || m.position, mention_counts = r.mention_counts || m.count,
            mention_sentiments = r.mention_sentiments || null::double precision
          from unnest(${mentions.map((m) => m.runId)}::uuid[], ${mentions.map((m) => m.position)}::smallint[], ${mentions.map((m) => m.count)}::smallint[]) as m(run_id, position, count)
          where r.project_id = ${projectId} and r.id = m.run_id and not (${subjectId}::uuid = any(r.mention_subject_ids))`.execute(tx);
      }
      await upsertRollups(tx, projectId, deltas);
      await queueDetection(tx, projectId, days);
      await markProjectChanged(tx, projectId);
      await tx
        .updateTable('subject_backfills')
        .set({ after_run_id: rows.at(-1)!.id })
        .where('project_id', '=', projectId)
        .where('subject_id', '=', subjectId)
        .execute();
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
