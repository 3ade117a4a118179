import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { isRangeDay, type Filters } from '../analytics/filters.ts';
import { BadRequestError } from '../http/errors.ts';
import type { SubjectRow } from '../analytics/list-subjects.ts';

export type RunStatusFilter = 'ok' | 'failed' | 'no_answer';

export interface RunMention {
  subjectType: 'brand' | 'competitor';
  subjectId: string;
  name: string;
  position: number | null;
  count: number;
  sentiment: number | null;
}

export interface RunSummary {
  id: string;
  promptId: string;
  prompt: string;
  engineId: string;
  engine: string;
  topicId: string | null;
  location: string | null;
  branded: boolean;
  ranAt: string;
  day: string;
  status: RunStatusFilter;
  mentions: RunMention[];
  citationCount: number;
  /** How it was captured: `import`, or the provider that answered a check. */
  source: 'import' | 'sampled';
  provider: string | null;
  model: string | null;
  surface: 'api' | 'serp' | null;
  /** The scorer of the mentions' sentiment, where the service scored them. */
  sentimentMethod: string | null;
  /** Competitors this run did not track (UNTRACKED): it is outside their samples. */
  untrackedSubjectIds: string[];
}

/** A run time as PostgreSQL prints it (microseconds kept, so a page boundary is exact). */
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}) ([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?[+-](0\d|1[0-5])(:[0-5]\d)?$/;

/** Where a page of runs ends: the last run's day, time and id (newest first), as an opaque string. */
export function encodeCursor(day: string, ranAt: string, id: string): string {
  return Buffer.from(`${day}|${ranAt}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { day: string; ranAt: string; id: string } {
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const [day, ranAt, id] = parts;
  // Every part as the database would take it (a real day, a real time, an offset it knows): a
  // forged cursor is a 400, never a query that fails.
  const time = TIMESTAMP.exec(ranAt ?? '');
  if (parts.length !== 3 || !isRangeDay(day!) || !time || !isRangeDay(time[1]!) || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id!)) {
    throw new BadRequestError('cursor is not one this endpoint gave', { cursor: 'must be a nextCursor from a previous page' });
  }
  return { day: day!, ranAt: ranAt!, id: id! };
}

/**
 * The competitors a run did not track: added after it was recorded (times compared in SQL, to the
 * microsecond), and not searched for in its answer by their backfill (a completed run with answer
 * text is, once the backfill has passed it). The run is outside their samples, so a competitor's
 * `sampleSize` is the completed runs of its cell without it in this list (operations.md section 6:
 * every number traced to the runs behind it).
 */
export const UNTRACKED = sql<string[]>`array(
    select c.id from competitors c
    where c.project_id = r.project_id and c.created_at > r.created_at
      and not exists (
        select 1 from subject_backfills b
        where b.project_id = r.project_id and b.subject_id = c.id and r.status = 'ok' and r.answer is not null
          and (b.done_at is not null or r.id <= b.after_run_id))
    order by c.created_at, c.id)`.as('untracked_subject_ids');

/** Columns of a run a listing shows, and the names they need. */
export const RUN_COLUMNS = [
  'r.id',
  'r.prompt_id',
  'p.text as prompt',
  'r.engine_id',
  'e.key as engine',
  'r.topic_id',
  'r.location',
  'r.branded',
  'r.ran_at',
  'r.day',
  'r.status',
  'r.mention_subject_ids',
  'r.mention_positions',
  'r.mention_counts',
  'r.mention_sentiments',
  'r.cited_url_ids',
  'r.check_id',
  'r.provider',
  'r.model',
  'r.surface',
  'r.sentiment_method',
] as const;

type RunRow = {
  id: string;
  prompt_id: string;
  prompt: string;
  engine_id: string;
  engine: string;
  topic_id: string | null;
  location: string;
  branded: boolean;
  ran_at: Date;
  day: string;
  status: RunStatusFilter;
  mention_subject_ids: string[];
  mention_positions: (number | null)[];
  mention_counts: number[];
  mention_sentiments: (number | null)[];
  cited_url_ids: string[];
  check_id: string | null;
  provider: string | null;
  model: string | null;
  surface: 'api' | 'serp' | null;
  sentiment_method: string | null;
  untracked_subject_ids: string[];
};

/** A run row as the listing shows it, its mentions named. */
export function summaryOf(row: RunRow, subjects: readonly SubjectRow[]): RunSummary {
  const byId = new Map(subjects.map((s) => [s.subjectId, s]));
  return {
    id: row.id,
    promptId: row.prompt_id,
    prompt: row.prompt,
    engineId: row.engine_id,
    engine: row.engine,
    topicId: row.topic_id,
    location: row.location === '' ? null : row.location,
    branded: row.branded,
    ranAt: row.ran_at.toISOString(),
    day: row.day,
    status: row.status,
    mentions: row.mention_subject_ids.flatMap((id, i) => {
      const s = byId.get(id);
      return s ? [{ subjectType: s.subjectType, subjectId: id, name: s.name, position: row.mention_positions[i] ?? null, count: row.mention_counts[i] ?? 1, sentiment: row.mention_sentiments[i] ?? null }] : [];
    }),
    citationCount: row.cited_url_ids.length,
    source: row.check_id === null ? 'import' : 'sampled',
    provider: row.provider,
    model: row.model,
    surface: row.surface,
    sentimentMethod: row.sentiment_method,
    untrackedSubjectIds: row.untracked_subject_ids,
  };
}

/**
 * A page of the project's runs, newest first (day, time, id), under the analytics filters plus a
 * prompt and a status. Read along the (project, day, time, id) index backwards from the cursor, so
 * a page costs its size, not the project's.
 */
export async function listRuns(
  db: Kysely<DB>,
  f: Filters,
  extra: { promptId: string | undefined; status: RunStatusFilter | undefined; limit: number; cursor: string | undefined },
  subjects: readonly SubjectRow[],
): Promise<{ runs: RunSummary[]; nextCursor: string | null }> {
  const after = extra.cursor === undefined ? undefined : decodeCursor(extra.cursor);
  let query = db
    .selectFrom('runs as r')
    .innerJoin('prompts as p', (join) => join.onRef('p.project_id', '=', 'r.project_id').onRef('p.id', '=', 'r.prompt_id'))
    .innerJoin('engines as e', 'e.id', 'r.engine_id')
    .select([...RUN_COLUMNS])
    .select(UNTRACKED)
    .select(sql<string>`r.day::text`.as('day'))
    .select(sql<string>`r.ran_at::text`.as('ran_at_text'))
    .where('r.project_id', '=', f.projectId)
    .where('r.day', '>=', f.from)
    .where('r.day', '<=', f.to);
  if (f.engineId !== null) query = query.where('r.engine_id', '=', f.engineId);
  if (f.topicId !== null) query = query.where('r.topic_id', '=', f.topicId);
  if (f.location !== null) query = query.where('r.location', '=', f.location);
  if (f.branded !== null) query = query.where('r.branded', '=', f.branded);
  if (extra.promptId !== undefined) query = query.where('r.prompt_id', '=', extra.promptId);
  if (extra.status !== undefined) query = query.where('r.status', '=', extra.status);
  if (after) query = query.where(sql<boolean>`(r.day, r.ran_at, r.id) < (${after.day}::date, ${after.ranAt}::timestamptz, ${after.id}::uuid)`);
  const rows = (await query.orderBy('r.day', 'desc').orderBy('r.ran_at', 'desc').orderBy('r.id', 'desc').limit(extra.limit + 1).execute()) as unknown as (RunRow & { ran_at_text: string })[];
  const page = rows.slice(0, extra.limit);
  const last = page.at(-1);
  return {
    runs: page.map((r) => summaryOf(r, subjects)),
    nextCursor: rows.length > extra.limit && last ? encodeCursor(last.day, last.ran_at_text, last.id) : null,
  };
}
