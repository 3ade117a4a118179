import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { SEP, type RollupDeltas } from './cube-deltas.ts';

type Column = readonly [name: string, type: string];
const CELL_KEY: Column[] = [
  ['project_id', 'uuid'],
  ['grouping', 'smallint'],
  ['engine_id', 'uuid'],
  ['topic_id', 'uuid'],
  ['location', 'text'],
  ['branded', 'boolean'],
  ['day', 'date'],
];
const RUN_SUMS: Column[] = [
  ['ok_runs', 'integer'],
  ['failed_runs', 'integer'],
  ['mentions', 'bigint'],
];
const SUBJECT_SUMS: Column[] = [
  ['tracked_runs', 'integer'],
  ['mention_runs', 'integer'],
  ['mentions', 'bigint'],
  ['position_sum', 'bigint'],
  ['position_count', 'integer'],
  ['sentiment_sum', 'double precision'],
  ['sentiment_count', 'integer'],
  ['citations', 'bigint'],
  ['citing_runs', 'integer'],
];

/**
 * The rollup upsert step: adds a batch's deltas to the three rollups, in key order (so concurrent
 * writers could not deadlock even without the project lock), skipping cells whose delta is zero.
 */
export async function upsertRollups(tx: Transaction<DB>, projectId: string, deltas: RollupDeltas): Promise<void> {
  const rowsOf = <T>(map: Map<string, T>, extra: string | undefined, sums: (value: T) => Record<string, number>) =>
    [...map.entries()]
      .filter(([, value]) => Object.values(sums(value)).some((n) => n !== 0))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => {
        const [grouping, engine_id, topic_id, location, branded, day, id] = key.split(SEP) as string[];
        return {
          project_id: projectId,
          grouping: Number(grouping),
          engine_id,
          topic_id,
          location,
          branded: branded === 'true',
          day,
          ...(extra ? { [extra]: id } : {}),
          ...sums(value),
        };
      });
  await incrementRollup(tx, 'run_rollup', [], RUN_SUMS, rowsOf(deltas.runs, undefined, (v) => ({ ...v })));
  await incrementRollup(tx, 'subject_rollup', [['subject_id', 'uuid']], SUBJECT_SUMS, rowsOf(deltas.subjects, 'subject_id', (v) => ({ ...v })));
  await incrementRollup(tx, 'citation_rollup', [['url_id', 'uuid']], [['citations', 'integer']], rowsOf(deltas.citations, 'url_id', (n) => ({ citations: n })));
}

/**
 * Adds rows to a rollup: a new key is inserted, an existing one has its sums increased. One
 * statement per chunk, the rows passed as one array per column (`unnest`), which keeps the
 * statement small however many rows it carries. Rows must have distinct keys, in key order.
 */
async function incrementRollup(
  tx: Transaction<DB>,
  table: 'run_rollup' | 'subject_rollup' | 'citation_rollup',
  extraKey: Column[],
  sums: Column[],
  rows: Record<string, unknown>[],
): Promise<void> {
  const key = [...CELL_KEY, ...extraKey];
  const columns = [...key, ...sums];
  for (let i = 0; i < rows.length; i += 5_000) {
    const part = rows.slice(i, i + 5_000);
    const arrays = columns.map(([name, type]) => sql`${part.map((row) => row[name])}::${sql.raw(type)}[]`);
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map(([name]) => sql.ref(name)))})
      select * from unnest(${sql.join(arrays)})
      on conflict (${sql.join(key.map(([name]) => sql.ref(name)))})
      do update set ${sql.join(sums.map(([name]) => sql`${sql.ref(name)} = ${sql.table(table)}.${sql.ref(name)} + excluded.${sql.ref(name)}`))}`.execute(tx);
  }
}
