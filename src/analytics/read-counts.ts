import { sql, type Kysely } from 'kysely';
import { PREPARE_MARK } from '../db/prepared.ts';
import type { DB } from '../db/types.ts';
import { rollupWhere, type Filters } from './filters.ts';
import { NO_COUNTS, type Counts } from './measures.ts';

interface Row {
  subject_id: string | null;
  day: string;
  all_mentions: number;
  ok_runs: number;
  untracked_runs: number;
  mention_runs: number;
  mentions: number;
  position_sum: number;
  position_count: number;
  sentiment_sum: number;
  sentiment_count: number;
  citations: number;
}

/**
 * The counts of every subject (or of one), per day or over the whole range, summed from the
 * rollups in one round trip: never from runs, so the cost follows the range and the filters, not
 * the runs stored. A subject's sample is the completed runs that tracked it (0 before it was
 * added, unless its backfill found answers to search); share of voice is over all tracked
 * subjects' mentions. `countsOf(subjectId, day)` answers for any day ('' for the whole range).
 */
export async function readCounts(
  db: Kysely<DB>,
  f: Filters,
  subjects: readonly { subjectId: string }[],
  by: 'day' | 'range',
): Promise<(subjectId: string, day: string) => Counts> {
  const day = by === 'day' ? sql`day::text` : sql`''`;
  const ids = subjects.map((s) => s.subjectId);
  const rows = await sql<Row>`${sql.raw(PREPARE_MARK)}
    select null::uuid as subject_id, ${day} as day, sum(ok_runs) as ok_runs, sum(mentions) as all_mentions, 0 as untracked_runs, 0 as mention_runs, 0 as mentions,
      0 as position_sum, 0 as position_count, 0 as sentiment_sum, 0 as sentiment_count, 0 as citations
    from run_rollup where ${rollupWhere('run_rollup', f)} group by 2
    union all
    select subject_id, ${day}, 0, 0, sum(untracked_runs), sum(mention_runs), sum(mentions), sum(position_sum), sum(position_count),
      sum(sentiment_sum), sum(sentiment_count), sum(citations)
    from subject_rollup where ${rollupWhere('subject_rollup', f)} and subject_id = any(${ids}::uuid[]) group by 1, 2`.execute(db);

  const runs = new Map<string, { ok: number; mentions: number }>();
  const counts = new Map<string, Counts & { untracked: number }>();
  for (const r of rows.rows) {
    if (r.subject_id === null) {
      runs.set(r.day, { ok: Number(r.ok_runs), mentions: Number(r.all_mentions) });
      continue;
    }
    counts.set(`${r.subject_id}|${r.day}`, {
      ...NO_COUNTS,
      untracked: Number(r.untracked_runs),
      mentionRuns: Number(r.mention_runs),
      mentions: Number(r.mentions),
      positionSum: Number(r.position_sum),
      positionCount: Number(r.position_count),
      sentimentSum: Number(r.sentiment_sum),
      sentimentCount: Number(r.sentiment_count),
      citations: Number(r.citations),
    });
  }
  return (subjectId, d) => {
    const { untracked, ...c } = counts.get(`${subjectId}|${d}`) ?? { ...NO_COUNTS, untracked: 0 };
    const run = runs.get(d);
    return { ...c, sampleSize: (run?.ok ?? 0) - untracked, allMentions: run?.mentions ?? 0 };
  };
}
