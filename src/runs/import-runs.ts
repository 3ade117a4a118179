import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { detectPendingChanges } from '../changes/detect-changes.ts';
import { parseRunLine, type RunRecord } from './parse-run-line.ts';
import { cooperation } from './cooperate.ts';
import { prepareBatch, resolveFor, type PreparedBatch } from './prepare-batch.ts';
import { recordPrepared, recordRuns } from './record-runs.ts';
import { loadWriteContext, type WriteContext } from './write-context.ts';

export interface ImportResult {
  imported: number;
  skipped: number;
  rejected: number;
  errors: { line: number; message: string }[];
}

/** At most this many line errors are listed; `rejected` counts them all. */
export const MAX_LISTED_ERRORS = 10_000;
/**
 * Runs a transaction: big enough that a rollup cell is written once for many runs (a day of a
 * large project is about 10,000 runs: at 20,000 the bench imports 13.8k runs/s, at 10,000 11.2k,
 * bench/README.md), small enough that memory stays flat (two batches are held: one being written,
 * one being prepared). `runs import` takes SIGHTLINE_IMPORT_BATCH.
 */
export const BATCH_SIZE = 20_000;
/** Imports of at least this many runs refresh the planner statistics (and vacuum) when they finish. */
const ANALYZE_AFTER = 10_000;

interface Line {
  line: number;
  record: RunRecord;
}

/**
 * Imports run records (JSON Lines) as a pipeline: parse each line (parse-run-line.ts); prepare a
 * batch (prepare-batch.ts) from the project's write context and the batch before it; record it
 * through the one write path (record-runs.ts), which checks under the project lock what the
 * preparation assumed. While one batch is being written, the next is parsed and prepared: the
 * database and the JavaScript work at once. Then drain the change detection the batches queued.
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
  const context = await loadWriteContext(db, projectId); // 404 before reading anything
  const result: ImportResult = { imported: 0, skipped: 0, rejected: 0, errors: [] };
  const reject = (line: number, message: string) => {
    result.rejected++;
    if (result.errors.length < MAX_LISTED_ERRORS) result.errors.push({ line, message });
  };
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const now = options.now ?? new Date();
  // The batch being written (at most one), and how it failed if it did.
  let writing: Promise<void> | undefined;
  let failed: { error: unknown } | undefined;
  const settle = async () => {
    await writing;
    if (failed) throw failed.error;
  };
  // The batch last handed to the database: the next one is prepared on top of it.
  let inflight: PreparedBatch | undefined;
  const write = async (batch: Line[]) => {
    const prepared = await prepareBatch(context, resolveFor(context, batch.map((b) => b.record)), { inflight, pause });
    await settle();
    inflight = prepared;
    writing = writeBatch(db, context, batch, prepared, result, reject).then(
      () => undefined,
      (error: unknown) => void (failed = { error }),
    );
  };
  const pause = cooperation();
  let batch: Line[] = [];
  let lineNumber = 0;
  for (let next = await source.next(); !next.done; next = await source.next()) {
    lineNumber++;
    // Let the batch being written take its turns on the event loop.
    if (writing) {
      await pause();
      if (failed) break;
    }
    if (next.value.trim() === '') continue;
    const parsed = parseRunLine(next.value, now);
    if (!parsed.ok) {
      reject(lineNumber, parsed.message);
      continue;
    }
    batch.push({ line: lineNumber, record: parsed.record });
    if (batch.length >= batchSize) {
      await write(batch);
      batch = [];
    }
  }
  if (batch.length > 0 && !failed) await write(batch);
  await settle();
  result.errors.sort((a, b) => a.line - b.line);
  await detectPendingChanges(db, projectId);
  // A large import changes the tables' shape: refresh the planner's statistics, and reclaim the
  // row versions its updates left (of pages and rollups), now rather than wait for autovacuum
  // (which a server may have turned off).
  if (result.imported >= ANALYZE_AFTER) {
    await sql`vacuum (analyze) cited_urls, run_rollup, subject_rollup, url_days`.execute(db);
    await sql`analyze runs, cell_pages`.execute(db);
  }
  return result;
}

/** Records a prepared batch; if the database refuses its data, records its runs one by one. */
async function writeBatch(
  db: Kysely<DB>,
  context: WriteContext,
  batch: Line[],
  prepared: PreparedBatch | undefined,
  result: ImportResult,
  reject: (line: number, message: string) => void,
): Promise<void> {
  let recorded;
  try {
    recorded = prepared ? await recordPrepared(db, context, prepared) : await recordRuns(db, context.projectId, batch.map((b) => b.record));
  } catch (error) {
    if (!refusedData(error)) throw error;
    if (batch.length === 1) return reject(batch[0]!.line, `the database refused this run: ${(error as Error).message}`);
    // Find the line at fault: each run on its own.
    for (const one of batch) await writeBatch(db, context, [one], undefined, result, reject);
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
