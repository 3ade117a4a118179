import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Filters } from './filters.ts';
import type { SubjectRow } from './list-subjects.ts';
import { measure, type Measures } from './measures.ts';
import { readCounts } from './read-counts.ts';

export type RankingRow = SubjectRow & Measures;

/**
 * The brand and every competitor over the range: visibility descending with withheld (null) last,
 * then mention runs descending, then name.
 */
export async function getRanking(db: Kysely<DB>, f: Filters, subjects: SubjectRow[]): Promise<RankingRow[]> {
  const countsOf = await readCounts(db, f, subjects, 'range');
  const rows = subjects.map((s) => ({ ...s, ...measure(countsOf(s.subjectId, ''), 'range') }));
  return rows.sort(
    (a, b) =>
      (b.visibility ?? -1) - (a.visibility ?? -1) ||
      b.mentionRuns - a.mentionRuns ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}
