import type { RunRollupTable, SubjectRollupTable } from '../db/types.ts';
import { cellsOf, KEPT_GROUPINGS, NO_TOPIC, URL_GROUPINGS, type CubeCell } from './rollup-cube.ts';

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

/** What the runs of one detail cell (every dimension) and day add. */
interface DetailDelta {
  dims: RunDims;
  runs: RunSums;
  subjects: Map<string, SubjectSums>;
  /** Citations per cited page (URL id) that day. */
  urls: Map<string, number>;
}

/**
 * Increments of the rollups, summed in memory over a batch at the detail level: one entry per
 * distinct (dimensions, day), however many runs fall in it. `expandDeltas` spreads them into the
 * cells kept, once per entry rather than once per run; upsert-rollups.ts writes the result.
 */
export interface RollupDeltas {
  details: Map<string, DetailDelta>;
}

export function emptyDeltas(): RollupDeltas {
  return { details: new Map() };
}

const zeroRun = (): RunSums => ({ ok_runs: 0, failed_runs: 0, mentions: 0 });
const zeroSubject = (): SubjectSums => ({
  untracked_runs: 0,
  mention_runs: 0,
  mentions: 0,
  position_sum: 0,
  position_count: 0,
  sentiment_sum: 0,
  sentiment_count: 0,
  citations: 0,
  citing_runs: 0,
});

function detailOf(deltas: RollupDeltas, dims: RunDims): DetailDelta {
  const key = `${dims.engineId}|${dims.topicId}|${dims.location}|${dims.branded}|${dims.day}`;
  let detail = deltas.details.get(key);
  if (!detail) {
    detail = { dims, runs: zeroRun(), subjects: new Map(), urls: new Map() };
    deltas.details.set(key, detail);
  }
  return detail;
}

function addTo<T extends object>(sums: T, delta: Partial<T>): void {
  for (const name in delta) (sums as Record<string, number>)[name]! += delta[name] as number;
}

export function addRunDelta(deltas: RollupDeltas, dims: RunDims, delta: Partial<RunSums>): void {
  addTo(detailOf(deltas, dims).runs, delta);
}

export function addSubjectDelta(deltas: RollupDeltas, dims: RunDims, subjectId: string, delta: Partial<SubjectSums>): void {
  const subjects = detailOf(deltas, dims).subjects;
  let sums = subjects.get(subjectId);
  if (!sums) subjects.set(subjectId, (sums = zeroSubject()));
  addTo(sums, delta);
}

/** What a recorded run adds: the subjects tracked when it was recorded, what it mentions and cites. */
export interface RunContribution {
  dims: RunDims;
  status: 'ok' | 'failed' | 'no_answer';
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
  const detail = detailOf(deltas, run.dims);
  if (run.status !== 'ok') {
    if (run.status === 'failed') detail.runs.failed_runs++;
    return;
  }
  detail.runs.ok_runs++;
  for (const m of run.mentions) {
    detail.runs.mentions += m.count;
    let sums = detail.subjects.get(m.subjectId);
    if (!sums) detail.subjects.set(m.subjectId, (sums = zeroSubject()));
    sums.mention_runs++;
    sums.mentions += m.count;
    if (m.position !== null) {
      sums.position_sum += m.position;
      sums.position_count++;
    }
    if (m.sentiment !== null) {
      sums.sentiment_sum += m.sentiment;
      sums.sentiment_count++;
    }
  }
  for (const urlId of run.pages) detail.urls.set(urlId, (detail.urls.get(urlId) ?? 0) + 1);
  for (const [subjectId, citations] of run.subjectCitations) {
    if (citations <= 0) continue;
    let sums = detail.subjects.get(subjectId);
    if (!sums) detail.subjects.set(subjectId, (sums = zeroSubject()));
    sums.citations += citations;
    sums.citing_runs++;
  }
}

/** A row of run_rollup, subject_rollup or url_days as the deltas add to it. */
export interface CellRow<T> {
  cell: CubeCell;
  /** The day (run and subject rows) or the first of the month (URL rows). */
  day: string;
  /** The subject or URL id (subject and URL rows). */
  id: string;
  sums: T;
}

export interface ExpandedDeltas {
  runs: CellRow<RunSums>[];
  subjects: CellRow<SubjectSums>[];
  /** A URL's citations in the month as running totals: element d counts days 1 to d (31 counts). */
  urls: CellRow<number[]>[];
  /** Per detail cell and day, the pages cited and how often. */
  pages: { dims: RunDims; urlIds: string[]; counts: number[] }[];
}

/**
 * The deltas spread into every cell kept (rollup-cube.ts), per day (per month, as running totals,
 * for URLs; the detail's pages as they are). Sums of zero are left out.
 */
export function expandDeltas(deltas: RollupDeltas): ExpandedDeltas {
  // One entry per cell and day (or month), holding its subjects' (or URLs') rows by id: the ids
  // are the same string objects throughout, so only the cell keys are built, once per detail entry.
  const runs = new Map<string, { row: CellRow<RunSums>; subjects: Map<string, CellRow<SubjectSums>> }>();
  const urls = new Map<string, Map<string, CellRow<number[]>>>();
  for (const { dims, runs: runSums, subjects: subjectSums, urls: urlCounts } of deltas.details.values()) {
    const cells = cellsOf(dims.engineId, dims.topicId, dims.location, dims.branded, KEPT_GROUPINGS);
    const month = `${dims.day.slice(0, 8)}01`;
    const dayIndex = Number(dims.day.slice(8, 10)) - 1;
    for (const cell of cells) {
      const cellKey = `${cell.grouping}|${cell.engine_id}|${cell.topic_id}|${cell.location}|${cell.branded}`;
      const key = `${cellKey}|${dims.day}`;
      let entry = runs.get(key);
      if (!entry) runs.set(key, (entry = { row: { cell, day: dims.day, id: '', sums: zeroRun() }, subjects: new Map() }));
      addTo(entry.row.sums, runSums);
      for (const [subjectId, sums] of subjectSums) {
        let row = entry.subjects.get(subjectId);
        if (!row) entry.subjects.set(subjectId, (row = { cell, day: dims.day, id: subjectId, sums: zeroSubject() }));
        addTo(row.sums, sums);
      }
      if (urlCounts.size === 0 || !URL_GROUPINGS.has(cell.grouping)) continue;
      const urlKey = `${cellKey}|${month}`;
      let byUrl = urls.get(urlKey);
      if (!byUrl) urls.set(urlKey, (byUrl = new Map()));
      for (const [urlId, n] of urlCounts) {
        let row = byUrl.get(urlId);
        if (!row) byUrl.set(urlId, (row = { cell, day: month, id: urlId, sums: new Array<number>(31).fill(0) }));
        for (let d = dayIndex; d < 31; d++) row.sums[d]! += n;
      }
    }
  }
  const nonZero = (sums: object) => Object.values(sums).some((n) => n !== 0);
  const out: ExpandedDeltas = { runs: [], subjects: [], urls: [], pages: [] };
  for (const { dims, urls: urlCounts } of deltas.details.values()) {
    const cited = [...urlCounts].filter(([, n]) => n !== 0);
    if (cited.length) out.pages.push({ dims: { ...dims, topicId: dims.topicId ?? NO_TOPIC }, urlIds: cited.map(([id]) => id), counts: cited.map(([, n]) => n) });
  }
  for (const { row, subjects } of runs.values()) {
    if (nonZero(row.sums)) out.runs.push(row);
    for (const subjectRow of subjects.values()) if (nonZero(subjectRow.sums)) out.subjects.push(subjectRow);
  }
  for (const byUrl of urls.values()) for (const row of byUrl.values()) if (row.sums.some((n) => n !== 0)) out.urls.push(row);
  return out;
}
