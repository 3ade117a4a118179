import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { detectPendingChanges } from '../changes/detect-changes.ts';
import { loadProjectSubjects } from './load-project-subjects.ts';
import { parseRunLine, type RunRecord } from './parse-run-line.ts';
import { recordRuns } from './record-runs.ts';

export interface ImportResult {
  imported: number;
  skipped: number;
  rejected: number;
  errors: { line: number; message: string }[];
}

/** At most this many line errors are listed; `rejected` counts them all. */
export const MAX_LISTED_ERRORS = 10_000;
/** Runs a transaction: big enough that a rollup cell is written once for many runs. */
const BATCH_SIZE = 2_000;
/** Imports of at least this many runs refresh the planner statistics when they finish. */
const ANALYZE_AFTER = 10_000;

interface Line {
  line: number;
  record: RunRecord;
}

/**
 * Imports run records (JSON Lines): parse each line (parse-run-line.ts), record them in batches of
 * 2,000 through the one write path (record-runs.ts), then drain the change detection they queued.
 * A line that is not valid is reported by number with the reason and the rest import. If the
 * database refuses a batch for its data, the batch is written run by run, so only the line at
 * fault is refused. Ids make re-imports idempotent.
 */
export async function importRuns(
  db: Kysely<DB>,
  projectId: string,
  lines: AsyncIterable<string> | Iterable<string>,
  options: { batchSize?: number; now?: Date } = {},
): Promise<ImportResult> {
  // Take the iterator before the first await: a readline interface emits lines whether or not
  // anyone listens, and only an iterator already made buffers them.
  const source: AsyncIterator<string> | Iterator<string> =
    Symbol.asyncIterator in lines ? lines[Symbol.asyncIterator]() : lines[Symbol.iterator]();
  await loadProjectSubjects(db, projectId); // 404 before reading anything
  const result: ImportResult = { imported: 0, skipped: 0, rejected: 0, errors: [] };
  const reject = (line: number, message: string) => {
    result.rejected++;
    if (result.errors.length < MAX_LISTED_ERRORS) result.errors.push({ line, message });
  };
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const now = options.now ?? new Date();
  let batch: Line[] = [];
  let lineNumber = 0;
  for (let next = await source.next(); !next.done; next = await source.next()) {
    lineNumber++;
    if (next.value.trim() === '') continue;
    const parsed = parseRunLine(next.value, now);
    if (!parsed.ok) {
      reject(lineNumber, parsed.message);
      continue;
    }
    batch.push({ line: lineNumber, record: parsed.record });
    if (batch.length >= batchSize) {
      await writeBatch(db, projectId, batch, result, reject);
      batch = [];
    }
  }
  if (batch.length > 0) await writeBatch(db, projectId, batch, result, reject);
  result.errors.sort((a, b) => a.line - b.line);
  await detectPendingChanges(db, projectId);
  // A large import changes the tables' shape: refresh the planner's statistics now rather than
  // wait for autovacuum (which a server may have turned off).
  if (result.imported >= ANALYZE_AFTER) {
    await sql`analyze runs, cited_urls, run_rollup, subject_rollup, url_days`.execute(db);
  }
  return result;
}

async function writeBatch(db: Kysely<DB>, projectId: string, batch: Line[], result: ImportResult, reject: (line: number, message: string) => void): Promise<void> {
  let recorded;
  try {
    recorded = await recordRuns(db, projectId, batch.map((b) => b.record));
  } catch (error) {
    if (!refusedData(error) || batch.length === 1) {
      if (refusedData(error)) return reject(batch[0]!.line, `the database refused this run: ${(error as Error).message}`);
      throw error;
    }
    // Find the line at fault: each run on its own.
    for (const one of batch) await writeBatch(db, projectId, [one], result, reject);
    return;
  }
  result.imported += recorded.landed;
  result.skipped += recorded.skipped;
  for (const { index, message } of recorded.rejected) reject(batch[index]!.line, message);
}

/** PostgreSQL refused a value (SQLSTATE class 22, data exception: out of range, bad encoding, ...). */
function refusedData(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('22');
}
