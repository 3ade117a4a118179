import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { rollupWhere, type Filters } from './filters.ts';
import { NO_COUNTS, type Counts } from './measures.ts';

/**
 * The counts of every subject (or of one), per day or over the whole range, summed from the
 * rollups: never from runs, so the cost follows the range and the filters, not the runs stored.
 * A subject's sample is the completed runs that tracked it (0 before it was added, unless its
 * backfill found answers to search); share of voice is over all tracked subjects' mentions.
 * `countsOf(subjectId, day)` answers for any day (pass '' for the whole range), zeros included.
 */
export async function readCounts(
  db: Kysely<DB>,
  f: Filters,
  subjects: readonly { subjectId: string }[],
  by: 'day' | 'range',
): Promise<(subjectId: string, day: string) => Counts> {
  const perDay = by === 'day';
  const ids = subjects.map((s) => s.subjectId);

  const runRows = await db
    .selectFrom('run_rollup')
    .select((eb) => [
      perDay ? eb.ref('day').as('day') : eb.val('').as('day'),
      eb.fn.sum<number>('mentions').as('mentions'),
    ])
    .where(rollupWhere('run_rollup', f))
    .$if(perDay, (q) => q.groupBy('day'))
    .execute();
  const runs = new Map(runRows.map((r) => [String(r.day), { mentions: Number(r.mentions ?? 0) }]));

  const subjectRows =
    ids.length === 0
      ? []
      : await db
          .selectFrom('subject_rollup')
          .select((eb) => [
            'subject_id',
            perDay ? eb.ref('day').as('day') : eb.val('').as('day'),
            eb.fn.sum<number>('tracked_runs').as('tracked_runs'),
            eb.fn.sum<number>('mention_runs').as('mention_runs'),
            eb.fn.sum<number>('mentions').as('mentions'),
            eb.fn.sum<number>('position_sum').as('position_sum'),
            eb.fn.sum<number>('position_count').as('position_count'),
            eb.fn.sum<number>('sentiment_sum').as('sentiment_sum'),
            eb.fn.sum<number>('sentiment_count').as('sentiment_count'),
            eb.fn.sum<number>('citations').as('citations'),
          ])
          .where(rollupWhere('subject_rollup', f))
          .where('subject_id', 'in', ids)
          .groupBy(perDay ? ['subject_id', 'day'] : ['subject_id'])
          .execute();

  const counts = new Map<string, Counts>();
  const entry = (subjectId: string, day: string): Counts => {
    const key = `${subjectId}|${day}`;
    let c = counts.get(key);
    if (!c) {
      c = { ...NO_COUNTS, allMentions: runs.get(day)?.mentions ?? 0 };
      counts.set(key, c);
    }
    return c;
  };
  for (const r of subjectRows) {
    const c = entry(r.subject_id, String(r.day));
    c.sampleSize = Number(r.tracked_runs);
    c.mentionRuns = Number(r.mention_runs);
    c.mentions = Number(r.mentions);
    c.positionSum = Number(r.position_sum);
    c.positionCount = Number(r.position_count);
    c.sentimentSum = Number(r.sentiment_sum);
    c.sentimentCount = Number(r.sentiment_count);
    c.citations = Number(r.citations);
  }
  return (subjectId, day) => counts.get(`${subjectId}|${day}`) ?? entry(subjectId, day);
}
