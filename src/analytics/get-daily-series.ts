import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { eachDay, type Filters } from './filters.ts';
import { measure, type Measures } from './measures.ts';
import { readCounts } from './read-counts.ts';

export type SeriesPoint = { day: string } & Measures;

/** One point per day of the range, unsampled days included, for one subject. */
export async function getDailySeries(db: Kysely<DB>, f: Filters, subject: { subjectId: string }): Promise<SeriesPoint[]> {
  const countsOf = await readCounts(db, f, [subject], 'day');
  return eachDay(f.from, f.to).map((day) => ({ day, ...measure(countsOf(subject.subjectId, day), 'day') }));
}
