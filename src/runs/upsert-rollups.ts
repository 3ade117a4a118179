import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { SEP, type RollupDeltas } from './cube-deltas.ts';

type Column = readonly [name: string, type: string];

const CELL: Column[] = [
  ['project_id', 'uuid'],
  ['grouping', 'smallint'],
  ['engine_id', 'uuid'],
  ['topic_id', 'uuid'],
  ['location', 'text'],
  ['branded', 'boolean'],
];
const RUN_SUMS: Column[] = [
  ['ok_runs', 'integer'],
  ['failed_runs', 'integer'],
  ['mentions', 'integer'],
];
const SUBJECT_SUMS: Column[] = [
  ['untracked_runs', 'integer'],
  ['mention_runs', 'integer'],
  ['mentions', 'integer'],
  ['position_sum', 'integer'],
  ['position_count', 'integer'],
  ['sentiment_sum', 'double precision'],
  ['sentiment_count', 'integer'],
  ['citations', 'integer'],
  ['citing_runs', 'integer'],
];

/** Element-wise addition of two 31-day count arrays, as SQL. */
const ADD_COUNTS = sql.raw(`array[${Array.from({ length: 31 }, (_, i) => `url_days.counts[${i + 1}] + excluded.counts[${i + 1}]`).join(', ')}]`);

/**
 * The rollup upsert step: a batch's deltas into the rollups, each with one statement per chunk of
 * rows (passed as one array per column, `unnest`), in key order (so concurrent writers could not
 * deadlock even without the project lock); cells whose delta is zero are skipped.
 */
export async function upsertRollups(tx: Transaction<DB>, projectId: string, deltas: RollupDeltas): Promise<void> {
  const rows = <T>(map: Map<string, T>, keys: string[], values: (value: T) => Record<string, unknown>, empty: (value: T) => boolean) =>
    [...map.entries()]
      .filter(([, value]) => !empty(value))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => {
        const [grouping, engine_id, topic_id, location, branded, ...rest] = key.split(SEP) as string[];
        const row: Record<string, unknown> = { project_id: projectId, grouping: Number(grouping), engine_id, topic_id, location, branded: branded === 'true' };
        keys.forEach((name, i) => (row[name] = rest[i]));
        return Object.assign(row, values(value));
      });
  const zero = (sums: Record<string, number>) => Object.values(sums).every((n) => n === 0);
  await upsert(tx, 'run_rollup', [['day', 'date']], RUN_SUMS, rows(deltas.runs, ['day'], (v) => ({ ...v }), zero));
  await upsert(tx, 'subject_rollup', [['day', 'date'], ['subject_id', 'uuid']], SUBJECT_SUMS, rows(deltas.subjects, ['day', 'subject_id'], (v) => ({ ...v }), zero));
  // url_days: each row's 31 counts travel as one text array literal (arrays of arrays do not unnest).
  await upsert(
    tx,
    'url_days',
    [['month', 'date'], ['url_id', 'uuid']],
    [['counts', 'text']],
    rows(deltas.urls, ['month', 'url_id'], (counts) => ({ counts: `{${counts.join(',')}}` }), (counts) => counts.every((n) => n === 0)),
    { counts: { cast: sql`::integer[]`, merge: ADD_COUNTS } },
  );
}

/**
 * Adds rows to a rollup: a new key is inserted, an existing one takes the row's values added (or
 * merged as `special` says). Rows must have distinct keys, in key order.
 */
async function upsert(
  tx: Transaction<DB>,
  table: 'run_rollup' | 'subject_rollup' | 'url_days',
  extraKey: Column[],
  values: Column[],
  rows: Record<string, unknown>[],
  special: Record<string, { cast: ReturnType<typeof sql>; merge: ReturnType<typeof sql.raw> }> = {},
): Promise<void> {
  const key = [...CELL, ...extraKey];
  const columns = [...key, ...values];
  for (let i = 0; i < rows.length; i += 5_000) {
    const part = rows.slice(i, i + 5_000);
    const arrays = columns.map(([name, type]) => sql`${part.map((row) => row[name])}::${sql.raw(type)}[]`);
    const selected = columns.map(([name]) => (special[name] ? sql`${sql.ref(name)}${special[name].cast}` : sql.ref(name)));
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map(([name]) => sql.ref(name)))})
      select ${sql.join(selected)} from unnest(${sql.join(arrays)}) as t(${sql.join(columns.map(([name]) => sql.ref(name)))})
      on conflict (${sql.join(key.map(([name]) => sql.ref(name)))})
      do update set ${sql.join(
        values.map(([name]) =>
          special[name] ? sql`${sql.ref(name)} = ${special[name].merge}` : sql`${sql.ref(name)} = ${sql.table(table)}.${sql.ref(name)} + excluded.${sql.ref(name)}`,
        ),
      )}`.execute(tx);
  }
}
