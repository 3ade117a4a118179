/**
 * The rollup cube (migrations 0003, 0010): of the 16 subsets of the filter dimensions a run could
 * be grouped by, nine cells are kept: the detail (every dimension, grouping 0), each single filter
 * (7, 11, 13, 14), none (15), and the pairs of filters without the topic (5 engine and location,
 * 6 engine and brandedness, 12 location and brandedness: few cells a day, and the ones the detail
 * would answer with the most cells). A read whose filters name a kept cell reads it; any other
 * sums the detail cells that match (filters.ts: at most 21 a day, the topics). `grouping` has a
 * bit set for each dimension summed over, as PostgreSQL's GROUPING(engine_id, topic_id, location,
 * branded) numbers them.
 */

/** The cells kept in run_rollup and subject_rollup. */
export const KEPT_GROUPINGS: ReadonlySet<number> = new Set([0, 5, 6, 7, 11, 12, 13, 14, 15]);
/** The cells kept per URL and month (url_days); the detail's pages are in cell_pages, per day. */
export const URL_GROUPINGS: ReadonlySet<number> = new Set([7, 11, 13, 14, 15]);

export const NIL_UUID = '00000000-0000-0000-0000-000000000000';
/** "No topic" where topics are grouped by. */
export const NO_TOPIC = NIL_UUID;

const ENGINE = 8;
const TOPIC = 4;
const LOCATION = 2;
const BRANDED = 1;

export interface CubeCell {
  grouping: number;
  engine_id: string;
  topic_id: string;
  location: string;
  branded: boolean;
}

/** The cells a run with these dimensions counts in (of the groupings given; the kept ones by default). */
export function cellsOf(engineId: string, topicId: string | null, location: string, branded: boolean, groupings: ReadonlySet<number> = KEPT_GROUPINGS): CubeCell[] {
  const cells: CubeCell[] = [];
  for (const grouping of groupings) {
    cells.push({
      grouping,
      engine_id: grouping & ENGINE ? NIL_UUID : engineId,
      topic_id: grouping & TOPIC ? NIL_UUID : (topicId ?? NO_TOPIC),
      location: grouping & LOCATION ? '' : location,
      branded: grouping & BRANDED ? false : branded,
    });
  }
  return cells;
}

/** The one cell set that answers these filters (null: not filtered, so summed over). */
export function cellFor(filters: { engineId: string | null; topicId: string | null; location: string | null; branded: boolean | null }): CubeCell {
  return {
    grouping: (filters.engineId === null ? ENGINE : 0) | (filters.topicId === null ? TOPIC : 0) | (filters.location === null ? LOCATION : 0) | (filters.branded === null ? BRANDED : 0),
    engine_id: filters.engineId ?? NIL_UUID,
    topic_id: filters.topicId ?? NIL_UUID,
    location: filters.location ?? '',
    branded: filters.branded ?? false,
  };
}
