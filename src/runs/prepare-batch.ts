import { randomUUID } from 'node:crypto';
import { addRun, emptyDeltas } from './cube-deltas.ts';
import type { RunRecord } from './parse-run-line.ts';
import { resolveRuns, type ResolvedBatch, type ResolvedRun } from './resolve-run.ts';
import { citationsBySubject, type UrlState } from './subject-citations.ts';
import { sameSubjects } from './subjects.ts';
import { planPages, type PagePlan } from './upsert-cited-urls.ts';
import { serializeRollups, type SerializedRollups } from './upsert-rollups.ts';
import type { WriteContext } from './write-context.ts';
import { runColumns, type NewNames, type RunColumns } from './write-runs.ts';

/**
 * A batch made ready to write: everything its statements send, computed from the write context
 * (and the batch being written before it) without the database. record-runs.ts checks under the
 * project lock that what it assumed still holds, and prepares it again where it does not.
 */
export interface PreparedBatch {
  resolved: ResolvedBatch;
  /** The runs to record (all resolved runs, or those that landed). */
  runs: ResolvedRun[];
  /** The context's generation it was prepared in; its own number, and that of the batch in flight it was prepared on top of. */
  generation: number;
  seq: number;
  baseSeq: number;
  /** Ids of the names and pages the runs use (confirmed or minted). */
  topicIds: Map<string, string>;
  promptIds: Map<string, string>;
  /** The names to create (minted ids; a name the database turns out to hold is skipped). */
  newNames: NewNames;
  /** The pages the completed runs cite: their ids, state before and after the batch, the row to upsert. */
  pages: Map<string, PagePlan>;
  /** Pages whose status the batch changes (by id), for movePageCitations. */
  changes: Map<string, { before: UrlState; after: UrlState }>;
  columns: RunColumns;
  rollups: SerializedRollups;
  /** The days the runs fall on, for change detection. */
  days: string[];
}

/** The resolve step against the context's subjects: done again only if they changed. */
export function resolveFor(context: WriteContext, records: readonly RunRecord[], before?: ResolvedBatch): ResolvedBatch {
  if (before && (before.subjects === context.subjects || sameSubjects(before.subjects, context.subjects))) return before;
  return resolveRuns(records, context.subjects);
}

/**
 * The prepare step: resolve (resolve-run.ts); the ids of topics, prompts and pages, minted for
 * those not known yet; the pages' states after the batch (upsert-cited-urls.ts); the run rows
 * (write-runs.ts); the rollup deltas (cube-deltas.ts) with subject citations from the pages'
 * states after (subject-citations.ts), spread and serialized (upsert-rollups.ts). `inflight` is
 * the batch being written meanwhile: its pages' states after are this batch's states before.
 */
export async function prepareBatch(
  context: WriteContext,
  resolved: ResolvedBatch,
  options: { inflight?: PreparedBatch | undefined; landed?: ReadonlySet<string>; pause?: () => Promise<void> | undefined } = {},
): Promise<PreparedBatch> {
  // What the context says now: if it forgets meanwhile, this batch is prepared again.
  const generation = context.generation;
  const pause = options.pause ?? (() => undefined);
  const runs = options.landed ? resolved.runs.filter((r) => options.landed!.has(r.id)) : resolved.runs;
  const newNames: NewNames = { topics: [], prompts: [] };
  const topicIds = new Map<string, string>();
  const promptIds = new Map<string, string>();
  const inflight = options.inflight;
  for (const { record } of runs) {
    if (record.topic !== undefined) {
      const key = record.topic.toLowerCase();
      if (!topicIds.has(key)) {
        const known = context.topics.get(key) ?? inflight?.topicIds.get(key);
        const id = known ?? mint(context, `t:${key}`);
        topicIds.set(key, id);
        if (!known) newNames.topics.push({ id, name: record.topic });
      }
    }
    if (!promptIds.has(record.prompt)) {
      const known = context.prompts.get(record.prompt) ?? inflight?.promptIds.get(record.prompt);
      const id = known ?? mint(context, `p:${record.prompt}`);
      promptIds.set(record.prompt, id);
      if (!known) newNames.prompts.push({ id, text: record.prompt, topicId: record.topic === undefined ? null : topicIds.get(record.topic.toLowerCase())!, branded: record.branded });
    }
  }
  const completed = runs.filter((r) => r.record.status === 'ok');
  const pages = planPages(completed, (url) => inflight?.pages.get(url)?.after ?? context.pages.get(url), (url) => mint(context, `u:${url}`));
  const changes = new Map<string, { before: UrlState; after: UrlState }>();
  for (const page of pages.values()) {
    if (page.before && page.before.status !== page.after.status) changes.set(page.id, { before: page.before, after: page.after });
  }

  const topicOf = (topic: string | undefined) => (topic === undefined ? null : topicIds.get(topic.toLowerCase())!);
  const deltas = emptyDeltas();
  const days = new Set<string>();
  for (const run of runs) {
    await pause();
    const { record } = run;
    days.add(record.day);
    const cited = record.status === 'ok' ? run.citations.map((c) => pages.get(c.url)!) : [];
    addRun(deltas, {
      dims: { engineId: context.engines.get(record.engine)!, topicId: topicOf(record.topic), location: record.location, branded: record.branded, day: record.day },
      status: record.status,
      mentions: run.mentions.map((m) => ({ subjectId: m.subject.id, count: m.count, position: m.position, sentiment: m.sentiment })),
      pages: cited.map((p) => p.id),
      subjectCitations: citationsBySubject(cited, (p) => p.after),
    });
  }
  const columns = await runColumns(context, runs, { prompt: (text) => promptIds.get(text)!, topic: topicOf, page: (url) => pages.get(url)!.id }, pause);
  const rollups = await serializeRollups(deltas, pause);
  return {
    resolved,
    runs,
    generation,
    seq: ++context.prepared,
    baseSeq: inflight?.seq ?? context.lastCommitted,
    topicIds,
    promptIds,
    newNames,
    pages,
    changes,
    columns,
    rollups,
    days: [...days].sort(),
  };
}

/** The id minted for a name or page not known yet: the same one until the context forgets it. */
function mint(context: WriteContext, key: string): string {
  let id = context.minted.get(key);
  if (!id) context.minted.set(key, (id = randomUUID()));
  return id;
}
