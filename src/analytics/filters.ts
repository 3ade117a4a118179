import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { Type, type Static } from 'typebox';
import type { DB } from '../db/types.ts';
import { BadRequestError } from '../http/errors.ts';
import { IsoDate, Nullable, Uuid } from '../http/schemas.ts';
import { cellFor, KEPT_GROUPINGS, NIL_UUID } from '../runs/rollup-cube.ts';
import { utcDay } from '../usage/calendar.ts';

export const DEFAULT_WINDOW_DAYS = 28;
export const MAX_RANGE_DAYS = 366;

/** The common filter parameters of the analytics endpoints (query string). */
export const FilterQuery = Type.Object({
  from: Type.Optional({ ...IsoDate, description: 'range start, inclusive; default `to` minus 27 days' }),
  to: Type.Optional({ ...IsoDate, description: 'range end, inclusive; default today (UTC)' }),
  engineId: Type.Optional({ ...Uuid, description: 'one answer engine; unset means all' }),
  topicId: Type.Optional({ ...Uuid, description: 'one topic; unset means all' }),
  location: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'one sampling location; unset means all' })),
  branded: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'branded or unbranded prompts only' })),
});
export type FilterQuery = Static<typeof FilterQuery>;

/** InsightsFilters, echoed back: every filter, null when unset. */
export const InsightsFilters = Type.Object(
  {
    from: IsoDate,
    to: IsoDate,
    engineId: Nullable(Uuid),
    topicId: Nullable(Uuid),
    location: Nullable(Type.String()),
    branded: Nullable(Type.Boolean()),
  },
  { title: 'InsightsFilters' },
);

export interface Filters {
  projectId: string;
  from: string;
  to: string;
  engineId: string | null;
  topicId: string | null;
  location: string | null;
  branded: boolean | null;
}

export function echo(f: Filters): Omit<Filters, 'projectId'> {
  return { from: f.from, to: f.to, engineId: f.engineId, topicId: f.topicId, location: f.location, branded: f.branded };
}

/** A real calendar day in `YYYY-MM-DD` form, or undefined. */
export function parseDay(value: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return undefined;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: the year 0099 is 0099, not 1999.
  date.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return utcDay(date) === value ? date : undefined;
}

export function addDays(day: string, days: number): string {
  return utcDay(new Date(parseDay(day)!.getTime() + days * 86_400_000));
}

export function daysBetween(from: string, to: string): number {
  return Math.round((parseDay(to)!.getTime() - parseDay(from)!.getTime()) / 86_400_000);
}

/** Every day from `from` to `to`, inclusive. */
export function eachDay(from: string, to: string): string[] {
  const out: string[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) out.push(day);
  return out;
}

/**
 * The days a range may name: wide enough for any question, narrow enough that the day arithmetic
 * around them (the default `from`, the day after `to`, month spans) stays in four-digit years.
 */
export const FIRST_DAY = '1900-01-01';
export const LAST_DAY = '9998-12-31';

/** A real day from FIRST_DAY to LAST_DAY. */
export function isRangeDay(value: string): boolean {
  return parseDay(value) !== undefined && value >= FIRST_DAY && value <= LAST_DAY;
}

/**
 * The date range: `to` defaults to today (UTC), `from` to `to` minus 27 days; a date that does not
 * exist or lies outside FIRST_DAY..LAST_DAY, `from` after `to`, or a range over 366 days is 400
 * with `details` naming the field.
 */
export function resolveRange(query: { from?: string | undefined; to?: string | undefined }, now: Date): { from: string; to: string } {
  const details: Record<string, string> = {};
  const to = query.to ?? utcDay(now);
  for (const key of ['from', 'to'] as const) {
    const given = query[key];
    if (given === undefined) continue;
    if (!parseDay(given)) details[key] = 'must be a real date, YYYY-MM-DD';
    else if (given < FIRST_DAY || given > LAST_DAY) details[key] = `must be a day from ${FIRST_DAY} to ${LAST_DAY}`;
  }
  if (Object.keys(details).length) throw new BadRequestError('invalid date filter', details);
  const from = query.from ?? addDays(to, -(DEFAULT_WINDOW_DAYS - 1));
  if (from > to) {
    throw new BadRequestError(`\`from\` (${from}) is after \`to\` (${to})`, { from: `must not be after to (${to})` });
  }
  if (daysBetween(from, to) + 1 > MAX_RANGE_DAYS) {
    throw new BadRequestError(`the range ${from} to ${to} spans more than ${MAX_RANGE_DAYS} days`, {
      from: `the range may span at most ${MAX_RANGE_DAYS} days`,
    });
  }
  return { from, to };
}

/**
 * Defaults and cross-field rules: `to` defaults to today (UTC), `from` to `to` minus 27 days; `from`
 * after `to`, a range over 366 days, an engine that does not exist or a topic of another project
 * are 400 with `details` naming the field.
 */
export async function resolveFilters(db: Kysely<DB>, projectId: string, query: FilterQuery, now: Date, engineIds: ReadonlySet<string>): Promise<Filters> {
  const filters = resolveKnownFilters(projectId, query, now, engineIds);
  if (query.topicId !== undefined) {
    const topic = await db.selectFrom('topics').select('id').where('id', '=', query.topicId).where('project_id', '=', projectId).executeTakeFirst();
    if (!topic) throw new BadRequestError(`no topic ${query.topicId} in this project`, { topicId: 'is not a topic of this project' });
  }
  return filters;
}

/**
 * The filters resolved without a round trip: the range's defaults and limits, and the engine
 * checked against the engines (a reference table, read once at start-up). What only the
 * database can tell (whether a topic is the project's) is resolveFilters's.
 */
export function resolveKnownFilters(projectId: string, query: FilterQuery, now: Date, engineIds: ReadonlySet<string>): Filters {
  const { from, to } = resolveRange(query, now);
  if (query.engineId !== undefined && !engineIds.has(query.engineId.toLowerCase())) {
    throw new BadRequestError(`no answer engine ${query.engineId}`, { engineId: 'is not an answer engine id (see GET /api/v1/engines)' });
  }
  return {
    projectId,
    from,
    to,
    engineId: query.engineId?.toLowerCase() ?? null,
    topicId: query.topicId?.toLowerCase() ?? null,
    location: query.location ?? null,
    branded: query.branded === undefined ? null : query.branded === 'true',
  };
}

/**
 * The filters as a condition on a rollup: the filters' own cell where it is kept (the detail, a
 * single filter, or none: runs/rollup-cube.ts), else the detail cells (grouping 0) that match every
 * filter given (detailWhere). Over the date range when the table has days. The rows read are days
 * (or months) x matching cells x subjects or URLs, whatever the data size.
 */
export function rollupWhere(table: string, f: Filters, kept: ReadonlySet<number> = KEPT_GROUPINGS, range = true): RawBuilder<SqlBool> {
  const col = (name: string) => sql.ref(`${table}.${name}`);
  const cell = cellFor(f);
  const days = range ? sql` and ${col('day')} >= ${f.from} and ${col('day')} <= ${f.to}` : sql``;
  if (kept.has(cell.grouping)) {
    return sql<SqlBool>`(${col('project_id')} = ${f.projectId} and ${col('grouping')} = ${cell.grouping} and ${col('engine_id')} = ${cell.engine_id}
      and ${col('topic_id')} = ${cell.topic_id} and ${col('location')} = ${cell.location} and ${col('branded')} = ${cell.branded}${days})`;
  }
  return sql<SqlBool>`(${col('grouping')} = 0 and ${detailWhere(table, f, range)})`;
}

/**
 * The detail cells (every dimension) that match the filters, each dimension not given listed in
 * full: every engine; the project's topics and none; the locations with runs in the range; both
 * brandednesses. A key led by the dimensions is then searched cell by cell down to the range's
 * days (when the table has days) instead of read through.
 */
export function detailWhere(table: string, f: Filters, range = true): RawBuilder<SqlBool> {
  const col = (name: string) => sql.ref(`${table}.${name}`);
  const engines = f.engineId !== null ? sql`array[${f.engineId}::uuid]` : sql`array(select id from engines order by id)`;
  const topics =
    f.topicId !== null
      ? sql`array[${f.topicId}::uuid]`
      : sql`array(select ${NIL_UUID}::uuid union all (select id from topics where project_id = ${f.projectId} order by id))`;
  const locations =
    f.location !== null
      ? sql`array[${f.location}::text]`
      : sql`array(select distinct location from run_rollup l where l.project_id = ${f.projectId} and l.grouping = 13 and l.engine_id = ${NIL_UUID}
          and l.topic_id = ${NIL_UUID} and l.branded = false and l.day >= ${f.from} and l.day <= ${f.to})`;
  const branded = f.branded !== null ? sql`array[${f.branded}::boolean]` : sql`array[false, true]`;
  const days = range ? sql` and ${col('day')} >= ${f.from} and ${col('day')} <= ${f.to}` : sql``;
  return sql<SqlBool>`(${col('project_id')} = ${f.projectId} and ${col('engine_id')} = any(${engines}) and ${col('topic_id')} = any(${topics})
    and ${col('location')} = any(${locations}) and ${col('branded')} = any(${branded})${days})`;
}
