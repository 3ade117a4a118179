import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { plainArray, textArray } from '../db/array-literal.ts';
import { mapCooperatively } from './cooperate.ts';
import { expandDeltas, type CellRow, type ExpandedDeltas, type RollupDeltas } from './cube-deltas.ts';

type Column<T> = readonly [name: string, type: string, value: (row: CellRow<T>) => string | number | boolean | null];

const cellColumns = <T>(extra: Column<T>[]): Column<T>[] => [
  ['grouping', 'smallint', (r) => r.cell.grouping],
  ['engine_id', 'uuid', (r) => r.cell.engine_id],
  ['topic_id', 'uuid', (r) => r.cell.topic_id],
  ['location', 'text', (r) => r.cell.location],
  ['branded', 'boolean', (r) => r.cell.branded],
  ...extra,
];

const sum = <T>(name: keyof T & string, type = 'integer'): Column<T> => [name, type, (r) => r.sums[name] as number];

const RUN_KEY = cellColumns<Record<string, number>>([['day', 'date', (r) => r.day]]);
const RUN_SUMS = (['ok_runs', 'failed_runs', 'mentions'] as const).map((n) => sum<Record<string, number>>(n));
const SUBJECT_KEY = cellColumns<Record<string, number>>([
  ['day', 'date', (r) => r.day],
  ['subject_id', 'uuid', (r) => r.id],
]);
const SUBJECT_SUMS = [
  ...(['untracked_runs', 'mention_runs', 'mentions', 'position_sum', 'position_count'] as const).map((n) => sum<Record<string, number>>(n)),
  sum<Record<string, number>>('sentiment_sum', 'double precision'),
  ...(['sentiment_count', 'citations', 'citing_runs'] as const).map((n) => sum<Record<string, number>>(n)),
];
const URL_KEY = cellColumns<number[]>([
  ['month', 'date', (r) => r.day],
  ['url_id', 'uuid', (r) => r.id],
]);

/** Element-wise addition of two 31-day arrays of running totals, as SQL. */
const ADD_CUMULATIVE = sql.raw(`array[${Array.from({ length: 31 }, (_, i) => `url_days.cumulative[${i + 1}] + excluded.cumulative[${i + 1}]`).join(', ')}]`);

/** A rollup's rows as the statement sends them: one array literal per column, in column order. */
interface SerializedRows {
  count: number;
  arrays: string[];
}

/** A batch's rollup rows, serialized (serializeRollups), ready for writeRollups. */
export interface SerializedRollups {
  runs: SerializedRows[];
  subjects: SerializedRows[];
  urls: SerializedRows[];
  pages: SerializedRows[];
}

interface Table<T> {
  name: 'run_rollup' | 'subject_rollup' | 'url_days';
  key: Column<T>[];
  sums: Column<T>[];
  /** A column merged otherwise than by adding (url_days' running totals): how it is selected and updated. */
  special?: { column: Column<T>; select: ReturnType<typeof sql>; merge: ReturnType<typeof sql> };
}

const RUNS: Table<Record<string, number>> = { name: 'run_rollup', key: RUN_KEY, sums: RUN_SUMS };
const SUBJECTS: Table<Record<string, number>> = { name: 'subject_rollup', key: SUBJECT_KEY, sums: SUBJECT_SUMS };
const URLS: Table<number[]> = {
  name: 'url_days',
  key: URL_KEY,
  sums: [],
  special: {
    // Each row's 31 totals travel as one element of a text array (arrays of arrays do not unnest).
    column: ['cumulative', 'text', (r) => `{${r.sums.join(',')}}`],
    select: sql`cumulative::integer[]`,
    merge: sql`cumulative = ${ADD_CUMULATIVE}`,
  },
};

/** Rows per statement. */
const CHUNK = 10_000;

/** The deltas spread into the cells kept (cube-deltas.ts) and serialized, statement by statement. */
export async function serializeRollups(deltas: RollupDeltas, pause: () => Promise<void> | undefined = () => undefined): Promise<SerializedRollups> {
  const rows = expandDeltas(deltas);
  await pause();
  return {
    runs: await serialize(RUNS, rows.runs as CellRow<Record<string, number>>[], pause),
    subjects: await serialize(SUBJECTS, rows.subjects as unknown as CellRow<Record<string, number>>[], pause),
    urls: await serialize(URLS, rows.urls, pause),
    pages: await serializePages(rows.pages, pause),
  };
}

type PageRow = ExpandedDeltas['pages'][number];
const PAGE_COLUMNS: readonly [name: string, type: string, value: (row: PageRow) => string | boolean][] = [
  ['engine_id', 'uuid', (r) => r.dims.engineId],
  ['topic_id', 'uuid', (r) => r.dims.topicId!],
  ['location', 'text', (r) => r.dims.location],
  ['branded', 'boolean', (r) => r.dims.branded],
  ['day', 'date', (r) => r.dims.day],
  // Arrays of arrays do not unnest: each row's list travels as one text element.
  ['url_ids', 'text', (r) => plainArray(r.urlIds)],
  ['counts', 'text', (r) => plainArray(r.counts)],
];

async function serializePages(rows: PageRow[], pause: () => Promise<void> | undefined): Promise<SerializedRows[]> {
  const out: SerializedRows[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    const arrays: string[] = [];
    for (const [, type, value] of PAGE_COLUMNS) {
      const values = await mapCooperatively(part, value, pause);
      arrays.push(type === 'text' ? textArray(values as string[]) : plainArray(values));
    }
    out.push({ count: part.length, arrays });
  }
  return out;
}

/** The detail's pages: appended under a write id of their own, never updated. */
async function writePages(tx: Transaction<DB>, projectId: string, rows: SerializedRows): Promise<void> {
  const names = sql.join(PAGE_COLUMNS.map(([name]) => sql.ref(name)));
  const arrays = sql.join(PAGE_COLUMNS.map(([, type], i) => sql`${rows.arrays[i]}::${sql.raw(type)}[]`));
  await sql`insert into cell_pages (project_id, write_id, ${names})
    select ${projectId}::uuid, ${randomUUID()}::uuid, engine_id, topic_id, location, branded, day, url_ids::uuid[], counts::integer[]
    from unnest(${arrays}) as t(${names})`.execute(tx);
}

/**
 * The rollup upsert step: each rollup with one `INSERT ... SELECT FROM unnest(...) ON CONFLICT DO
 * UPDATE` per chunk of rows. Callers hold the project lock, so no other writer updates the same
 * rows meanwhile (no deadlock, whatever the order of rows).
 */
export async function writeRollups(tx: Transaction<DB>, projectId: string, rollups: SerializedRollups): Promise<void> {
  for (const chunk of rollups.runs) await write(tx, projectId, RUNS, chunk);
  for (const chunk of rollups.subjects) await write(tx, projectId, SUBJECTS, chunk);
  for (const chunk of rollups.urls) await write(tx, projectId, URLS, chunk);
  for (const chunk of rollups.pages) await writePages(tx, projectId, chunk);
}

/** serializeRollups then writeRollups. */
export async function upsertRollups(tx: Transaction<DB>, projectId: string, deltas: RollupDeltas): Promise<void> {
  await writeRollups(tx, projectId, await serializeRollups(deltas));
}

const columnsOf = <T>(table: Table<T>): Column<T>[] => [...table.key, ...table.sums, ...(table.special ? [table.special.column] : [])];

async function serialize<T>(table: Table<T>, rows: CellRow<T>[], pause: () => Promise<void> | undefined): Promise<SerializedRows[]> {
  const out: SerializedRows[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    const arrays: string[] = [];
    for (const [, type, value] of columnsOf(table)) {
      const values = await mapCooperatively(part, value, pause);
      arrays.push(type === 'text' ? textArray(values as string[]) : plainArray(values));
    }
    out.push({ count: part.length, arrays });
  }
  return out;
}

async function write<T>(tx: Transaction<DB>, projectId: string, table: Table<T>, rows: SerializedRows): Promise<void> {
  const columns = columnsOf(table);
  const { special } = table;
  const names = sql.join(columns.map(([name]) => sql.ref(name)));
  const selected = sql.join(columns.map(([name]) => (special && name === special.column[0] ? special.select : sql.ref(name))));
  const updates = sql.join([
    ...table.sums.map(([name]) => sql`${sql.ref(name)} = ${sql.table(table.name)}.${sql.ref(name)} + excluded.${sql.ref(name)}`),
    ...(special ? [special.merge] : []),
  ]);
  const arrays = sql.join(columns.map(([, type], i) => sql`${rows.arrays[i]}::${sql.raw(type)}[]`));
  await sql`insert into ${sql.table(table.name)} (project_id, ${names})
    select ${projectId}::uuid, ${selected} from unnest(${arrays}) as t(${names})
    on conflict (project_id, ${sql.join(table.key.map(([name]) => sql.ref(name)))}) do update set ${updates}`.execute(tx);
}
