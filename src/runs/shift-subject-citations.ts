import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';

/**
 * Adds (sign 1) or removes (sign -1) everything a URL was cited, in every rollup cell, to or from
 * a subject's `citations`. Used when a URL's citations start or stop counting for a subject: its
 * status crosses into or out of `hallucinated`, or it passes to a competitor added later.
 */
export async function shiftSubjectCitations(
  tx: Transaction<DB>,
  projectId: string,
  urlIds: readonly string[],
  subjectId: string,
  sign: 1 | -1,
): Promise<void> {
  if (urlIds.length === 0) return;
  await sql`insert into subject_rollup (project_id, grouping, engine_id, topic_id, location, branded, day, subject_id,
      mention_runs, mentions, position_sum, position_count, sentiment_sum, sentiment_count, citations)
    select project_id, grouping, engine_id, topic_id, location, branded, day, ${subjectId}::uuid,
      0, 0, 0, 0, 0, 0, ${sign}::int * sum(citations)
    from citation_rollup
    where project_id = ${projectId} and url_id in (${sql.join(urlIds)})
    group by project_id, grouping, engine_id, topic_id, location, branded, day
    on conflict (project_id, grouping, engine_id, topic_id, location, branded, day, subject_id)
    do update set citations = subject_rollup.citations + excluded.citations`.execute(tx);
}
