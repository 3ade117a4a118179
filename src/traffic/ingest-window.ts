import { utcDay } from '../usage/calendar.ts';
import { FUTURE_TOLERANCE_MS, INGEST_WINDOW_DAYS } from './traffic-limits.ts';

export interface IngestWindow {
  /** The first UTC day accepted (`YYYY-MM-DD`): INGEST_WINDOW_DAYS before today. */
  firstDay: string;
  /** The latest time accepted: now plus FUTURE_TOLERANCE_MS. */
  latest: Date;
}

/**
 * The times a log line may carry to be counted, at `now`. Ingest refuses a line outside it and
 * pruning deletes the hashes of days before `firstDay`: the same window, so a line whose hash has
 * been pruned is refused as too old, never counted twice.
 */
export function ingestWindow(now: Date): IngestWindow {
  // One upload asks with the same `now` for each of its lines: the last answer is kept.
  if (last?.at === now.getTime()) return last.window;
  const today = Date.parse(`${utcDay(now)}T00:00:00Z`);
  const window = Object.freeze({
    firstDay: utcDay(new Date(today - INGEST_WINDOW_DAYS * 86_400_000)),
    latest: new Date(now.getTime() + FUTURE_TOLERANCE_MS),
  });
  last = { at: now.getTime(), window };
  return window;
}

let last: { at: number; window: IngestWindow } | undefined;
