import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { rollupWhere, type Filters } from './filters.ts';
import { NO_COUNTS, type Counts } from './measures.ts';

/**
 * The counts of every subject (or of one), per day or over the whole range, summed from the
 * rollups: never from runs, so the cost follows the range and the filters, not the runs stored.
 * `countsOf(subjectId, day)` answers for any day (pass '' for the whole range), zeros included.
 */
export async function readCounts(
  db: Kysely<DB>,
  f: Filters,
  subjects: readonly { subjectId: string; domain: string }[],
  by: 'day' | 'range',
): Promise<(subjectId: string, day: string) => Counts> {
  const perDay = by === 'day';
  const ids = subjects.map((s) => s.subjectId);

  const runRows = await db
    .selectFrom('run_rollup')
    .select((eb) => [
      perDay ? eb.ref('day').as('day') : eb.val('').as('day'),
      eb.fn.sum<number>('ok_runs').as('ok'),
      eb.fn.sum<number>('mentions').as('mentions'),
    ])
    .where(rollupWhere('run_rollup', f))
    .$if(perDay, (q) => q.groupBy('day'))
    .execute();
  const runs = new Map(runRows.map((r) => [String(r.day), { ok: Number(r.ok ?? 0), mentions: Number(r.mentions ?? 0) }]));

  const subjectRows =
    ids.length === 0
      ? []
      : await db
          .selectFrom('subject_rollup')
          .select((eb) => [
            'subject_id',
            perDay ? eb.ref('day').as('day') : eb.val('').as('day'),
            eb.fn.sum<number>('mention_runs').as('mention_runs'),
            eb.fn.sum<number>('mentions').as('mentions'),
            eb.fn.sum<number>('position_sum').as('position_sum'),
            eb.fn.sum<number>('position_count').as('position_count'),
            eb.fn.sum<number>('sentiment_sum').as('sentiment_sum'),
            eb.fn.sum<number>('sentiment_count').as('sentiment_count'),
          ])
          .where(rollupWhere('subject_rollup', f))
          .where('subject_id', 'in', ids)
          .groupBy(perDay ? ['subject_id', 'day'] : ['subject_id'])
          .execute();

  // Citations of a subject's domain (or subdomains), hallucinated ones excluded. Matched by host at
  // read time, so a competitor added later is credited with what was cited before.
  const citationRows = await Promise.all(
    subjects.map(async (s) =>
      db
        .selectFrom('citation_rollup')
        .innerJoin('cited_urls as u', 'u.id', 'citation_rollup.url_id')
        .select((eb) => [perDay ? eb.ref('citation_rollup.day').as('day') : eb.val('').as('day'), eb.fn.sum<number>('citation_rollup.citations').as('citations')])
        .where(rollupWhere('citation_rollup', f))
        .where('u.project_id', '=', f.projectId)
        .where('u.status', '<>', 'hallucinated')
        .where((eb) => eb.or([eb('u.host', '=', s.domain), eb('u.host', 'like', `%.${s.domain}`)]))
        .$if(perDay, (q) => q.groupBy('citation_rollup.day'))
        .execute()
        .then((rows) => rows.map((r) => ({ subjectId: s.subjectId, day: String(r.day), citations: Number(r.citations ?? 0) }))),
    ),
  );

  const counts = new Map<string, Counts>();
  const entry = (subjectId: string, day: string): Counts => {
    const key = `${subjectId}|${day}`;
    let c = counts.get(key);
    if (!c) {
      const run = runs.get(day);
      c = { ...NO_COUNTS, sampleSize: run?.ok ?? 0, allMentions: run?.mentions ?? 0 };
      counts.set(key, c);
    }
    return c;
  };
  for (const r of subjectRows) {
    const c = entry(r.subject_id, String(r.day));
    c.mentionRuns = Number(r.mention_runs);
    c.mentions = Number(r.mentions);
    c.positionSum = Number(r.position_sum);
    c.positionCount = Number(r.position_count);
    c.sentimentSum = Number(r.sentiment_sum);
    c.sentimentCount = Number(r.sentiment_count);
  }
  for (const r of citationRows.flat()) entry(r.subjectId, r.day).citations = r.citations;
  return (subjectId, day) => counts.get(`${subjectId}|${day}`) ?? entry(subjectId, day);
}
