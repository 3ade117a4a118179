import { sql, type RawBuilder } from 'kysely';
import { URL_GROUPINGS } from '../runs/rollup-cube.ts';
import { addDays, rollupWhere, type Filters } from './filters.ts';

/**
 * Per URL cited in the range, in the filters' single cell of `url_days` (no filter or one): its
 * citations and its last day cited, from the running totals of the range's months (per row, the
 * range's citations are a difference of two totals, its last cited day the first day the total
 * reached its value). `byEngine`: per engine and URL instead, from the engine cells (grouping 7),
 * the filters' own engine ignored.
 */
export function urlDaysTotals(f: Filters, options: { byEngine?: boolean } = {}): RawBuilder<unknown> {
  const months = monthSpans(f.from, f.to);
  const when = (value: (m: MonthSpan) => unknown) => sql.join(months.map((m) => sql`when ${m.month}::date then ${value(m)}`), sql` `);
  // The last day of the month inside the range, and the day before its first (0: none).
  const last = sql`(case d.month ${when((m) => sql`${m.last}::int`)} end)`;
  const before = sql`(case d.month ${when((m) => sql`${m.first - 1}::int`)} end)`;
  const cell = options.byEngine ? sql`d.project_id = ${f.projectId} and d.grouping = 7` : rollupWhere('d', f, URL_GROUPINGS, false);
  const engine = options.byEngine ? sql`engine_id, ` : sql``;
  return sql`
    select ${engine}url_id, sum(total)::int as total, max(last_seen)::text as last_seen
    from (
      select d.engine_id, d.url_id, d.cumulative[${last}] - coalesce(d.cumulative[${before}], 0) as total,
        d.month + (array_position(d.cumulative, d.cumulative[${last}]) - 1) as last_seen
      from url_days d
      where ${cell} and d.month in (${sql.join(months.map((m) => sql`${m.month}::date`))})
    ) m
    where total > 0
    group by ${engine}url_id`;
}

/** A month the range touches, with the first and last of its days inside the range (1-based). */
interface MonthSpan {
  month: string;
  first: number;
  last: number;
}

function monthSpans(from: string, to: string): MonthSpan[] {
  const out: MonthSpan[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) {
    const month = `${day.slice(0, 8)}01`;
    const d = Number(day.slice(8, 10));
    const current = out.at(-1);
    if (current?.month === month) current.last = d;
    else out.push({ month, first: d, last: d });
  }
  return out;
}
