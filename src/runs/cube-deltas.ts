import type { RunRollupTable, SubjectRollupTable } from '../db/types.ts';
import { cellsOf, URL_GROUPINGS, type CubeCell } from './rollup-cube.ts';

/** Where a run counts: its filter dimensions and its day. */
export interface RunDims {
  engineId: string;
  topicId: string | null;
  location: string;
  branded: boolean;
  day: string;
}

type Dimensions = 'project_id' | 'grouping' | 'day' | 'engine_id' | 'topic_id' | 'location' | 'branded';
export type RunSums = Omit<RunRollupTable, Dimensions>;
export type SubjectSums = Omit<SubjectRollupTable, Dimensions | 'subject_id'>;

/**
 * Increments of the rollups, summed in memory over a batch: one entry per distinct cell (and
 * subject, or URL and month), whatever the number of runs behind it. Keys are the cell's values
 * and the day (or month) joined with NUL, which no value contains; upsert-rollups.ts writes them.
 */
export interface RollupDeltas {
  runs: Map<string, RunSums>;
  subjects: Map<string, SubjectSums>;
  /** A URL's citations in a cell, per day of a month (31 counts). */
  urls: Map<string, number[]>;
}

export const SEP = '\u0000';

export function emptyDeltas(): RollupDeltas {
  return { runs: new Map(), subjects: new Map(), urls: new Map() };
}

const ZERO_RUN: RunSums = { ok_runs: 0, failed_runs: 0, mentions: 0 };
const ZERO_SUBJECT: SubjectSums = {
  untracked_runs: 0,
  mention_runs: 0,
  mentions: 0,
  position_sum: 0,
  position_count: 0,
  sentiment_sum: 0,
  sentiment_count: 0,
  citations: 0,
  citing_runs: 0,
};

const cellKey = (c: CubeCell) => [c.grouping, c.engine_id, c.topic_id, c.location, c.branded].join(SEP);

interface Keys {
  /** The cells kept, the day appended. */
  all: string[];
  /** The cells kept per URL, the month appended. */
  urls: string[];
  /** The day of the month, 1-based. */
  dayOfMonth: number;
}

/**
 * The keys of the cells a run counts in, made once per distinct (dimensions, day) and kept: a
 * batch holds many runs of few such combinations, and every run adds to 16 cells several times.
 */
const keyCache = new Map<string, Keys>();
function keysOf(dims: RunDims): Keys {
  const id = `${dims.engineId}${SEP}${dims.topicId}${SEP}${dims.location}${SEP}${dims.branded}${SEP}${dims.day}`;
  let keys = keyCache.get(id);
  if (!keys) {
    const month = `${dims.day.slice(0, 8)}01`;
    keys = {
      all: cellsOf(dims.engineId, dims.topicId, dims.location, dims.branded).map((c) => `${cellKey(c)}${SEP}${dims.day}`),
      urls: cellsOf(dims.engineId, dims.topicId, dims.location, dims.branded, URL_GROUPINGS).map((c) => `${cellKey(c)}${SEP}${month}`),
      dayOfMonth: Number(dims.day.slice(8, 10)),
    };
    if (keyCache.size > 100_000) keyCache.clear();
    keyCache.set(id, keys);
  }
  return keys;
}

function add<T extends Record<string, number>>(map: Map<string, T>, key: string, zero: T, delta: Partial<T>): void {
  let sums = map.get(key);
  if (!sums) {
    sums = { ...zero };
    map.set(key, sums);
  }
  for (const name in delta) (sums as Record<string, number>)[name] = sums[name]! + delta[name]!;
}

export function addRunDelta(deltas: RollupDeltas, dims: RunDims, delta: Partial<RunSums>): void {
  for (const key of keysOf(dims).all) add(deltas.runs, key, ZERO_RUN, delta);
}

export function addSubjectDelta(deltas: RollupDeltas, dims: RunDims, subjectId: string, delta: Partial<SubjectSums>): void {
  for (const key of keysOf(dims).all) add(deltas.subjects, `${key}${SEP}${subjectId}`, ZERO_SUBJECT, delta);
}

/** A citation of the URL on the run's day, in the cells kept per URL. */
export function addUrlCitation(deltas: RollupDeltas, dims: RunDims, urlId: string): void {
  const keys = keysOf(dims);
  for (const cell of keys.urls) {
    const key = `${cell}${SEP}${urlId}`;
    let counts = deltas.urls.get(key);
    if (!counts) {
      counts = new Array<number>(31).fill(0);
      deltas.urls.set(key, counts);
    }
    counts[keys.dayOfMonth - 1]!++;
  }
}

/** What a recorded run adds: the subjects tracked when it was recorded, what it mentions and cites. */
export interface RunContribution {
  dims: RunDims;
  status: 'ok' | 'failed';
  mentions: readonly { subjectId: string; count: number; position: number | null; sentiment: number | null }[];
  /** The pages it cites (cited_urls ids), each once. */
  pages: readonly string[];
  /** Its citations per subject (subject-citations.ts). */
  subjectCitations: ReadonlyMap<string, number>;
}

/**
 * A run's part of the rollups. A failed run counts only as failed: in no sample, no mention, no
 * citation. A completed run is in the sample of every subject tracked when it is recorded (all
 * of them: it is recorded under the project lock, after the subjects are read), which the run
 * count says; rows are written only for the subjects it mentions or cites.
 */
export function addRun(deltas: RollupDeltas, run: RunContribution): void {
  if (run.status === 'failed') {
    addRunDelta(deltas, run.dims, { failed_runs: 1 });
    return;
  }
  addRunDelta(deltas, run.dims, { ok_runs: 1, mentions: run.mentions.reduce((s, m) => s + m.count, 0) });
  for (const m of run.mentions) {
    addSubjectDelta(deltas, run.dims, m.subjectId, {
      mention_runs: 1,
      mentions: m.count,
      position_sum: m.position ?? 0,
      position_count: m.position === null ? 0 : 1,
      sentiment_sum: m.sentiment ?? 0,
      sentiment_count: m.sentiment === null ? 0 : 1,
    });
  }
  for (const urlId of run.pages) addUrlCitation(deltas, run.dims, urlId);
  for (const [subjectId, citations] of run.subjectCitations) {
    if (citations > 0) addSubjectDelta(deltas, run.dims, subjectId, { citations, citing_runs: 1 });
  }
}
