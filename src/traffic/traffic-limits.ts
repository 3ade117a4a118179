/**
 * The bounds that keep traffic storage and reads finite whatever clients send (decisions in
 * README.md). The migration 2026-11-23-0008 keeps its own copies of PAGE_CAP and OVERFLOW_PATH.
 */

/**
 * Distinct pages kept per project, UTC day and kind (crawler hits, AI visits). Hits to a page past
 * the cap are counted under OVERFLOW_PATH, with their platform and bot, so every total stays exact.
 */
export const PAGE_CAP = 1_000;

/** Where hits to pages past PAGE_CAP are counted. Not a path: stored paths always start with `/`. */
export const OVERFLOW_PATH = '(other)';

/** Longest stored page path, in UTF-8 bytes (cut on a character boundary). */
export const MAX_PATH_BYTES = 1_000;

/**
 * Ingest accepts a log line dated from the start of the UTC day this many days before today; its
 * dedupe hash is kept until that day leaves the window, then pruned (prune-traffic.ts).
 */
export const INGEST_WINDOW_DAYS = 90;

/** How far ahead of the server's clock a log line may be dated (clock skew, time zones). */
export const FUTURE_TOLERANCE_MS = 86_400_000;
