/**
 * The rollup cube (migration 2026-11-22-0003): every run counts in 16 rows of each rollup, one per
 * subset of the filter dimensions it is grouped by; a read picks the one row set that matches its
 * filters. `grouping` has a bit set for each dimension summed over, as PostgreSQL's
 * GROUPING(engine_id, topic_id, location, branded) numbers them.
 */

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

/** The 16 cells a run with these dimensions counts in. */
export function cellsOf(engineId: string, topicId: string | null, location: string, branded: boolean): CubeCell[] {
  const cells: CubeCell[] = [];
  for (let grouping = 0; grouping < 16; grouping++) {
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
