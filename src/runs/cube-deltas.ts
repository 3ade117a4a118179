import type { RunRollupTable, SubjectRollupTable } from '../db/types.ts';
import { cellsOf } from './rollup-cube.ts';

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
 * Increments of the three rollups, summed in memory over a batch: one entry per distinct cell
 * (and subject or URL), whatever the number of runs behind it. Keys are the cell's values joined
 * with NUL (which no value contains); `rowsOf` (upsert-rollups.ts) turns them into rows.
 */
export interface RollupDeltas {
  runs: Map<string, RunSums>;
  subjects: Map<string, SubjectSums>;
  citations: Map<string, number>;
}

export const SEP = '\u0000';

export function emptyDeltas(): RollupDeltas {
  return { runs: new Map(), subjects: new Map(), citations: new Map() };
}

const ZERO_RUN: RunSums = { ok_runs: 0, failed_runs: 0, mentions: 0 };
const ZERO_SUBJECT: SubjectSums = {
  tracked_runs: 0,
  mention_runs: 0,
  mentions: 0,
  position_sum: 0,
  position_count: 0,
  sentiment_sum: 0,
  sentiment_count: 0,
  citations: 0,
  citing_runs: 0,
};

/** The keys of the 16 cube cells a run with these dimensions counts in. */
function cellKeys(dims: RunDims): string[] {
  return cellsOf(dims.engineId, dims.topicId, dims.location, dims.branded).map((c) =>
    [c.grouping, c.engine_id, c.topic_id, c.location, c.branded, dims.day].join(SEP),
  );
}

function add<T extends Record<string, number>>(map: Map<string, T>, key: string, zero: T, delta: Partial<T>): void {
  let sums = map.get(key);
  if (!sums) {
    sums = { ...zero };
    map.set(key, sums);
  }
  for (const name in delta) (sums as Record<string, number>)[name]! += delta[name] as number;
}

export function addRunDelta(deltas: RollupDeltas, dims: RunDims, delta: Partial<RunSums>): void {
  for (const key of cellKeys(dims)) add(deltas.runs, key, ZERO_RUN, delta);
}

export function addSubjectDelta(deltas: RollupDeltas, dims: RunDims, subjectId: string, delta: Partial<SubjectSums>): void {
  for (const key of cellKeys(dims)) add(deltas.subjects, `${key}${SEP}${subjectId}`, ZERO_SUBJECT, delta);
}

export function addCitationDelta(deltas: RollupDeltas, dims: RunDims, urlId: string, citations: number): void {
  for (const key of cellKeys(dims)) deltas.citations.set(`${key}${SEP}${urlId}`, (deltas.citations.get(`${key}${SEP}${urlId}`) ?? 0) + citations);
}

/** What a recorded run adds: the subjects tracked when it was recorded, what it mentions and cites. */
export interface RunContribution {
  dims: RunDims;
  status: 'ok' | 'failed';
  /** Every subject tracked when the run was recorded: the run is in each one's sample. */
  trackedSubjectIds: readonly string[];
  mentions: readonly { subjectId: string; count: number; position: number | null; sentiment: number | null }[];
  /** The pages it cites, each once. */
  urlIds: readonly string[];
  /** Its citations per subject (subject-citations.ts). */
  subjectCitations: ReadonlyMap<string, number>;
}

/**
 * A run's part of the rollups. A failed run counts only as failed: in no sample, no mention, no
 * citation. A completed run is in the sample of every subject tracked when it was recorded.
 */
export function addRun(deltas: RollupDeltas, run: RunContribution): void {
  if (run.status === 'failed') {
    addRunDelta(deltas, run.dims, { failed_runs: 1 });
    return;
  }
  addRunDelta(deltas, run.dims, { ok_runs: 1, mentions: run.mentions.reduce((s, m) => s + m.count, 0) });
  for (const subjectId of run.trackedSubjectIds) addSubjectDelta(deltas, run.dims, subjectId, { tracked_runs: 1 });
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
  for (const urlId of run.urlIds) addCitationDelta(deltas, run.dims, urlId, 1);
  for (const [subjectId, citations] of run.subjectCitations) {
    if (citations > 0) addSubjectDelta(deltas, run.dims, subjectId, { citations, citing_runs: 1 });
  }
}
