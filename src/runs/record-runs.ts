import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { queueDetection } from '../changes/queue-detection.ts';
import { NotFoundError } from '../http/errors.ts';
import { lockProject } from '../db/lock-project.ts';
import type { RunRecord } from './parse-run-line.ts';
import { prepareBatch, resolveFor, type PreparedBatch } from './prepare-batch.ts';
import { movePageCitations } from './subject-citations.ts';
import type { Subject } from './subjects.ts';
import { findPages, upsertCitedUrls } from './upsert-cited-urls.ts';
import { writeRollups } from './upsert-rollups.ts';
import { forgetEntries, loadWriteContext, refreshContext, trimEntries, type WriteContext } from './write-context.ts';
import { findNames, insertAds, insertNames, insertRuns } from './write-runs.ts';

export interface RecordResult {
  /** Runs written. */
  landed: number;
  /** Runs whose id the project already held (or that repeat an id earlier in the batch). */
  skipped: number;
  /** Runs refused, by their index in the batch, with the reason. */
  rejected: { index: number; message: string }[];
  /** The subjects the runs were recorded against (tracked when the batch was written). */
  subjects: readonly Subject[];
}

/**
 * The one write path of runs, imported or sampled: a batch in one transaction, under the project
 * lock. It is prepared from the write context (prepare-batch.ts: resolve, ids, page states, run
 * rows, rollup deltas), then written through named steps:
 * 1. check the context: the project's data version is the one it last saw (else read again), the
 *    names and pages it minted ids for are new to the project (else take the project's ids);
 *    prepare again whatever rested on what changed;
 * 2. create the new topics and prompts; write the runs (write-runs.ts); a run the project holds
 *    already is skipped, and the batch is prepared again without it;
 * 3. upsert the pages they cite (upsert-cited-urls.ts), which must come out as planned; move the
 *    citations of pages whose status changed where they count for a subject (subject-citations.ts);
 * 4. upsert the rollups (upsert-rollups.ts);
 * 5. queue their days for change detection (queue-detection.ts), and move the project's data
 *    version (read caches key on it, and so does the next batch's check).
 * A crash at any point leaves all of the batch or none of it.
 */
export async function recordRuns(db: Kysely<DB>, projectId: string, records: readonly RunRecord[]): Promise<RecordResult> {
  return db.transaction().execute((tx) => recordRunsIn(tx, projectId, records));
}

/** recordRuns in the caller's transaction. */
export async function recordRunsIn(tx: Transaction<DB>, projectId: string, records: readonly RunRecord[]): Promise<RecordResult> {
  await lockProject(tx, projectId);
  const context = await loadWriteContext(tx, projectId);
  const resolved = resolveFor(context, records);
  // What the project holds of the batch's names and pages, read once, before preparing it.
  const ok = resolved.runs.filter((r) => r.record.status === 'ok');
  await readEntries(tx, context, {
    topics: [...new Set(resolved.runs.flatMap((r) => (r.record.topic === undefined ? [] : [r.record.topic.toLowerCase()])))],
    prompts: [...new Set(resolved.runs.map((r) => r.record.prompt))],
    urls: [...new Set(ok.flatMap((r) => r.citations.map((c) => c.url)))],
  });
  return (await writePrepared(tx, context, await prepareBatch(context, resolved))).result;
}

/**
 * Records a batch prepared beforehand (while the batch before it was being written) with a
 * context kept from batch to batch. The context is updated with what the batch wrote; if the
 * batch fails, it forgets what it held.
 */
export async function recordPrepared(db: Kysely<DB>, context: WriteContext, prepared: PreparedBatch): Promise<RecordResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      const written = await db.transaction().execute((tx) => writePrepared(tx, context, prepared));
      commitEntries(context, written.prepared);
      trimEntries(context);
      return written.result;
    } catch (error) {
      forgetEntries(context);
      context.version = null;
      // A context found stale after the runs were written: once more, everything read afresh.
      if (!(error instanceof StaleContext) || attempt > 1) throw error;
    }
  }
}

/** The database did not come out as the context predicted. */
class StaleContext extends Error {}

async function writePrepared(tx: Transaction<DB>, context: WriteContext, given: PreparedBatch): Promise<{ result: RecordResult; prepared: PreparedBatch }> {
  const { projectId } = context;
  // The lock first, then the version: a statement reads what was committed when it started, and
  // this one must see what the writer it waited for committed.
  await lockProject(tx, projectId);
  const lock = await sql<{ data_version: string }>`select data_version::text from projects where id = ${projectId}`.execute(tx);
  if (lock.rows.length === 0) throw new NotFoundError(`no project ${projectId}`);
  if (lock.rows[0]!.data_version !== context.version) await refreshContext(tx, context);

  // 1. What the batch was prepared from must hold.
  let prepared = given;
  const prepare = async () => prepareBatch(context, resolveFor(context, given.resolved.records, prepared.resolved));
  if (prepared.generation !== context.generation || prepared.baseSeq !== context.lastCommitted) prepared = await prepare();
  if (await confirmMinted(tx, context, prepared)) prepared = await prepare();

  // 2. Names, runs.
  await insertNames(tx, context, prepared.newNames);
  const landed = await insertRuns(tx, projectId, prepared.columns);
  if (landed.size < prepared.runs.length) {
    prepared = await prepareBatch(context, prepared.resolved, { landed });
    context.generation++;
  }
  await insertAds(tx, projectId, prepared.runs);

  // 3. Pages.
  if (!(await upsertCitedUrls(tx, context, prepared.pages))) throw new StaleContext('a cited page was not as the write context held it');
  await movePageCitations(tx, projectId, prepared.changes, landed);

  // 4, 5.
  await writeRollups(tx, projectId, prepared.rollups);
  await queueDetection(tx, projectId, prepared.days);
  if (prepared.runs.length > 0) {
    const moved = await sql<{ data_version: string }>`update projects set data_version = data_version + 1 where id = ${projectId} returning data_version::text`.execute(tx);
    context.version = moved.rows[0]!.data_version;
  }
  const { resolved } = prepared;
  return {
    prepared,
    result: { landed: prepared.runs.length, skipped: resolved.repeated + resolved.runs.length - prepared.runs.length, rejected: resolved.rejected, subjects: resolved.subjects },
  };
}

/**
 * Minted ids are checked against the project: a name or page another writer created since the
 * context last looked keeps its own id (and state). Returns true if any did (prepare again).
 */
async function confirmMinted(tx: Transaction<DB>, context: WriteContext, prepared: PreparedBatch): Promise<boolean> {
  const unconfirmed = <T>(used: Map<string, T>, known: Map<string, unknown>) => [...used.keys()].filter((key) => !known.has(key));
  return readEntries(tx, context, {
    topics: unconfirmed(prepared.topicIds, context.topics),
    prompts: unconfirmed(prepared.promptIds, context.prompts),
    urls: unconfirmed(prepared.pages, context.pages),
  });
}

/** Reads into the context the names and pages given that the project holds; true if it holds any. */
async function readEntries(tx: Transaction<DB>, context: WriteContext, { topics, prompts, urls }: { topics: string[]; prompts: string[]; urls: string[] }): Promise<boolean> {
  if (topics.length + prompts.length + urls.length === 0) return false;
  const names = await findNames(tx, context.projectId, { topics, prompts });
  const pages = urls.length ? await findPages(tx, context.projectId, urls) : new Map();
  for (const [name, id] of names.topics) context.topics.set(name, id);
  for (const [text, id] of names.prompts) context.prompts.set(text, id);
  for (const [url, state] of pages) context.pages.set(url, state);
  return names.topics.size + names.prompts.size + pages.size > 0;
}

/** After the batch committed: its names and pages are the project's, as it left them. */
function commitEntries(context: WriteContext, prepared: PreparedBatch): void {
  for (const [name, id] of prepared.topicIds) {
    context.topics.set(name, id);
    context.minted.delete(`t:${name}`);
  }
  for (const [text, id] of prepared.promptIds) {
    context.prompts.set(text, id);
    context.minted.delete(`p:${text}`);
  }
  for (const [url, page] of prepared.pages) {
    context.pages.set(url, page.after);
    context.minted.delete(`u:${url}`);
  }
  context.lastCommitted = prepared.seq;
}
