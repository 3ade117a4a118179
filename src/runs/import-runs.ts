import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB, RunRollupTable, SubjectRollupTable } from '../db/types.ts';
import { detectChanges } from '../changes/detect-changes.ts';
import { NotFoundError } from '../http/errors.ts';
import { classifyArticleType, hostIsUnder, registrableDomain } from './classify-url.ts';
import { parseRunLine, type RunRecord } from './parse-run-line.ts';
import { cellsOf, type CubeCell } from './rollup-cube.ts';
import { shiftSubjectCitations } from './shift-subject-citations.ts';
import { findMentions, resolveSubject, termsOf, type Subject } from './subjects.ts';
import type { ArticleType, CitationStatus } from './vocabulary.ts';

export interface ImportResult {
  imported: number;
  skipped: number;
  rejected: number;
  errors: { line: number; message: string }[];
}

/** At most this many line errors are listed; `rejected` counts them all. */
export const MAX_LISTED_ERRORS = 10_000;
const BATCH_SIZE = 500;

interface Mention {
  subject: Subject;
  position: number | null;
  sentiment: number | null;
  count: number;
}

interface Prepared {
  line: number;
  record: RunRecord;
  id: string;
  mentions: Mention[];
}

interface ProjectContext {
  workspaceId: string;
  projectId: string;
  subjects: Subject[];
  engines: Map<string, string>;
  topics: Map<string, string>;
  prompts: Map<string, string>;
}

/**
 * Imports run records (JSON Lines). Invalid lines are reported by number with a reason and the
 * rest import. Each batch of lines is one transaction holding the runs, their mentions, citations
 * and ads, and the rollup increments, so a crash loses nothing already committed and rollups never
 * disagree with runs. Ids make re-imports idempotent: a run whose id exists is skipped. Once the
 * runs are in, the change events of the days they landed on are detected again.
 */
export async function importRuns(
  db: Kysely<DB>,
  projectId: string,
  lines: AsyncIterable<string> | Iterable<string>,
  options: { batchSize?: number } = {},
): Promise<ImportResult> {
  // Take the iterator before the first await: a readline interface emits lines whether or not
  // anyone listens, and only an iterator already made buffers them.
  const source: AsyncIterator<string> | Iterator<string> =
    Symbol.asyncIterator in lines ? lines[Symbol.asyncIterator]() : lines[Symbol.iterator]();
  const context = await loadContext(db, projectId);
  const result: ImportResult = { imported: 0, skipped: 0, rejected: 0, errors: [] };
  const reject = (line: number, message: string) => {
    result.rejected++;
    if (result.errors.length < MAX_LISTED_ERRORS) result.errors.push({ line, message });
  };
  const batchSize = options.batchSize ?? BATCH_SIZE;
  let batch: Prepared[] = [];
  let lineNumber = 0;
  const landedDays = new Set<string>();
  for (let next = await source.next(); !next.done; next = await source.next()) {
    const raw = next.value;
    lineNumber++;
    if (raw.trim() === '') continue;
    const parsed = parseRunLine(raw);
    if (!parsed.ok) {
      reject(lineNumber, parsed.message);
      continue;
    }
    const mentions = resolveMentions(parsed.record, context.subjects);
    if (typeof mentions === 'string') {
      reject(lineNumber, mentions);
      continue;
    }
    batch.push({ line: lineNumber, record: parsed.record, id: parsed.record.id ?? randomUUID(), mentions });
    if (batch.length >= batchSize) {
      await writeBatch(db, context, batch, result, landedDays);
      batch = [];
    }
  }
  if (batch.length > 0) await writeBatch(db, context, batch, result, landedDays);
  // Change events of the days that received runs (and the days compared with them).
  if (landedDays.size > 0) await detectChanges(db, projectId, landedDays);
  // A large import changes the tables' shape: refresh the planner's statistics now rather than
  // wait for autovacuum (which a server may have turned off).
  if (result.imported >= ANALYZE_AFTER) {
    await sql`analyze runs, run_mentions, run_citations, cited_urls, run_rollup, subject_rollup, citation_rollup`.execute(db);
  }
  return result;
}

/** Imports of at least this many runs refresh the planner statistics when they finish. */
const ANALYZE_AFTER = 10_000;

async function loadContext(db: Kysely<DB>, projectId: string): Promise<ProjectContext> {
  const project = await db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
  if (!project) throw new NotFoundError(`no project ${projectId}`);
  const competitors = await db.selectFrom('competitors').selectAll().where('project_id', '=', projectId).orderBy('created_at').execute();
  const engines = await db.selectFrom('engines').select(['id', 'key']).execute();
  const topics = await db.selectFrom('topics').select(['id', 'name']).where('project_id', '=', projectId).execute();
  return {
    workspaceId: project.workspace_id,
    projectId,
    subjects: [
      { type: 'brand', id: project.id, name: project.name, domain: project.domain, aliases: project.aliases },
      ...competitors.map((c) => ({ type: 'competitor' as const, id: c.id, name: c.name, domain: c.domain, aliases: c.aliases })),
    ],
    engines: new Map(engines.map((e) => [e.key, e.id])),
    topics: new Map(topics.map((t) => [t.name.toLowerCase(), t.id])),
    prompts: new Map(),
  };
}

/**
 * The run's mentions of tracked subjects: as listed (untracked names are not ours to count and are
 * left out), or found in the answer when no list is given. A subject listed twice is an error.
 */
function resolveMentions(record: RunRecord, subjects: Subject[]): Mention[] | string {
  if (record.mentions === undefined) {
    if (record.answer === undefined) return [];
    return findMentions(record.answer, subjects).map((m) => ({ subject: m.subject, position: m.position, sentiment: null, count: m.count }));
  }
  const out: Mention[] = [];
  for (const [i, m] of record.mentions.entries()) {
    const subject = resolveSubject(subjects, m.subject);
    if (!subject) continue;
    if (out.some((o) => o.subject.id === subject.id)) {
      return `\`mentions[${i}]\` names ${subject.name} again; give one mention per subject`;
    }
    out.push({ subject, position: m.position ?? null, sentiment: m.sentiment ?? null, count: m.count });
  }
  return out;
}

async function writeBatch(db: Kysely<DB>, context: ProjectContext, batch: Prepared[], result: ImportResult, landedDays: Set<string>): Promise<void> {
  // Ids repeated inside the batch: the first stands, the others are re-imports.
  const seen = new Set<string>();
  const unique: Prepared[] = [];
  for (const p of batch) {
    if (seen.has(p.id)) result.skipped++;
    else {
      seen.add(p.id);
      unique.push(p);
    }
  }
  const topicsBefore = new Map(context.topics);
  const promptsBefore = new Map(context.prompts);
  try {
    const inserted = await db.transaction().execute(async (tx) => {
      await ensureTopics(tx, context, unique);
      await ensurePrompts(tx, context, unique);
      const insertedIds = await insertRuns(tx, context, unique);
      const landed = unique.filter((p) => insertedIds.has(p.id));
      const urls = await insertContents(tx, context, landed.filter((p) => p.record.status === 'ok'));
      await addToRollups(tx, context, landed, urls);
      return landed;
    });
    for (const p of inserted) landedDays.add(p.record.day);
    result.imported += inserted.length;
    result.skipped += unique.length - inserted.length;
  } catch (error) {
    // Nothing of the batch was written: forget names cached from it.
    context.topics = topicsBefore;
    context.prompts = promptsBefore;
    throw error;
  }
}

async function ensureTopics(tx: Transaction<DB>, context: ProjectContext, batch: Prepared[]): Promise<void> {
  const missing = new Map<string, string>();
  for (const { record } of batch) {
    if (record.topic !== undefined && !context.topics.has(record.topic.toLowerCase())) missing.set(record.topic.toLowerCase(), record.topic);
  }
  if (missing.size === 0) return;
  await tx
    .insertInto('topics')
    .values([...missing.values()].map((name) => ({ id: randomUUID(), workspace_id: context.workspaceId, project_id: context.projectId, name })))
    .onConflict((oc) => oc.doNothing())
    .execute();
  const rows = await tx
    .selectFrom('topics')
    .select(['id', 'name'])
    .where('project_id', '=', context.projectId)
    .where(sql<string>`lower(name)`, 'in', [...missing.keys()])
    .execute();
  for (const row of rows) context.topics.set(row.name.toLowerCase(), row.id);
}

const topicOf = (context: ProjectContext, record: RunRecord): string | null =>
  record.topic === undefined ? null : (context.topics.get(record.topic.toLowerCase()) ?? null);

async function ensurePrompts(tx: Transaction<DB>, context: ProjectContext, batch: Prepared[]): Promise<void> {
  const missing = new Map<string, RunRecord>();
  for (const { record } of batch) {
    if (!context.prompts.has(record.prompt) && !missing.has(record.prompt)) missing.set(record.prompt, record);
  }
  if (missing.size === 0) return;
  for (const part of chunks([...missing.values()], 1_000)) {
    await tx
      .insertInto('prompts')
      .values(
        part.map((record) => ({
          id: randomUUID(),
          workspace_id: context.workspaceId,
          project_id: context.projectId,
          text: record.prompt,
          topic_id: topicOf(context, record),
          branded: record.branded,
        })),
      )
      .onConflict((oc) => oc.columns(['project_id', 'text']).doNothing())
      .execute();
    const rows = await tx
      .selectFrom('prompts')
      .select(['id', 'text'])
      .where('project_id', '=', context.projectId)
      .where('text', 'in', part.map((r) => r.prompt))
      .execute();
    for (const row of rows) context.prompts.set(row.text, row.id);
  }
}

async function insertRuns(tx: Transaction<DB>, context: ProjectContext, batch: Prepared[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (const part of chunks(batch, 1_000)) {
    const rows = await tx
      .insertInto('runs')
      .values(
        part.map(({ record, id }) => ({
          id,
          workspace_id: context.workspaceId,
          project_id: context.projectId,
          engine_id: context.engines.get(record.engine)!,
          prompt_id: context.prompts.get(record.prompt)!,
          topic_id: topicOf(context, record),
          location: record.location,
          branded: record.branded,
          ran_at: record.ranAt,
          day: record.day,
          status: record.status,
          answer: record.answer ?? null,
        })),
      )
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .execute();
    for (const row of rows) inserted.add(row.id);
  }
  return inserted;
}

/** Mentions, citations (with their URLs) and ads of completed runs; returns the cited URLs. */
async function insertContents(tx: Transaction<DB>, context: ProjectContext, runs: Prepared[]): Promise<Map<string, CitedUrl>> {
  const mentionRows = runs.flatMap(({ id, mentions }) =>
    mentions.map((m) => ({
      run_id: id,
      project_id: context.projectId,
      subject_type: m.subject.type,
      subject_id: m.subject.id,
      position: m.position,
      sentiment: m.sentiment,
      count: m.count,
    })),
  );
  for (const part of chunks(mentionRows, 1_000)) await tx.insertInto('run_mentions').values(part).execute();

  const urls = await upsertCitedUrls(tx, context, runs);
  const citationRows = runs.flatMap(({ id, record }) =>
    record.citations.map((c, ordinal) => ({
      run_id: id,
      project_id: context.projectId,
      ordinal,
      url_id: urls.get(c.url)!.id,
      status: c.status,
      article_type: c.articleType ?? classifyArticleType(c.url),
    })),
  );
  for (const part of chunks(citationRows, 1_000)) await tx.insertInto('run_citations').values(part).execute();

  const adRows = runs.flatMap(({ id, record }) =>
    record.ads.map((ad, ordinal) => ({
      run_id: id,
      project_id: context.projectId,
      ordinal,
      advertiser: ad.advertiser,
      url: ad.url ?? null,
      competitor_id: advertiserCompetitor(context.subjects, ad.advertiser, ad.url)?.id ?? null,
    })),
  );
  for (const part of chunks(adRows, 1_000)) await tx.insertInto('run_ads').values(part).execute();
  return urls;
}

/** The competitor behind an ad: by name, alias or domain of the advertiser, or by the ad URL's host. */
export function advertiserCompetitor(subjects: readonly Subject[], advertiser: string, url: string | undefined): Subject | undefined {
  const competitors = subjects.filter((s) => s.type === 'competitor');
  const named = advertiser.trim().toLowerCase();
  const byName = competitors.find((c) => termsOf(c).includes(named) || hostIsUnder(named, c.domain));
  if (byName) return byName;
  if (url === undefined) return undefined;
  const host = new URL(url).hostname.toLowerCase();
  return competitors.find((c) => hostIsUnder(host, c.domain));
}

/**
 * The subject a cited URL belongs to: the one whose domain its host is, or is under; the most
 * specific domain wins (a competitor on `shop.acme.com` owns its pages, the brand `acme.com` the rest).
 */
export function citedSubject(subjects: readonly Subject[], host: string): Subject | undefined {
  let owner: Subject | undefined;
  for (const s of subjects) {
    if (hostIsUnder(host, s.domain) && (!owner || s.domain.length > owner.domain.length)) owner = s;
  }
  return owner;
}

/** A cited URL as this batch leaves it. */
interface CitedUrl {
  id: string;
  status: string;
  subjectId: string | null;
}

/**
 * One row per cited URL of the project. The verification status is the URL's: the latest
 * observation by run time wins, whatever the order of import. A URL of a subject whose status
 * crosses into or out of `hallucinated` moves its past citations out of or into the subject's count.
 */
async function upsertCitedUrls(tx: Transaction<DB>, context: ProjectContext, runs: Prepared[]): Promise<Map<string, CitedUrl>> {
  const latest = new Map<string, { status: CitationStatus; at: Date; articleType: ArticleType }>();
  for (const { record } of runs) {
    for (const c of record.citations) {
      const seen = latest.get(c.url);
      // The status: the latest observation wins. The article type: the first one given, else classified.
      const articleType = seen?.articleType ?? c.articleType ?? classifyArticleType(c.url);
      if (!seen || record.ranAt >= seen.at) latest.set(c.url, { status: c.status, at: record.ranAt, articleType });
    }
  }
  const urls = new Map<string, CitedUrl>();
  const entries = [...latest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const part of chunks(entries, 1_000)) {
    const before = new Map(
      (
        await tx
          .selectFrom('cited_urls')
          .select(['url', 'status'])
          .where('project_id', '=', context.projectId)
          .where('url', 'in', part.map(([url]) => url))
          .execute()
      ).map((r) => [r.url, r.status]),
    );
    const rows = await tx
      .insertInto('cited_urls')
      .values(
        part.map(([url, seen]) => {
          const host = new URL(url).hostname.toLowerCase();
          const subject = citedSubject(context.subjects, host);
          return {
            id: randomUUID(),
            workspace_id: context.workspaceId,
            project_id: context.projectId,
            url,
            host,
            domain: registrableDomain(host),
            article_type: seen.articleType,
            status: seen.status,
            status_at: seen.at,
            subject_type: subject?.type ?? null,
            subject_id: subject?.id ?? null,
          };
        }),
      )
      .onConflict((oc) =>
        oc.columns(['project_id', 'url']).doUpdateSet({
          status: sql`case when excluded.status_at >= cited_urls.status_at then excluded.status else cited_urls.status end`,
          status_at: sql`greatest(excluded.status_at, cited_urls.status_at)`,
        }),
      )
      .returning(['id', 'url', 'status', 'subject_id'])
      .execute();
    const flips = new Map<string, { into: string[]; outOf: string[] }>();
    for (const row of rows) {
      urls.set(row.url, { id: row.id, status: row.status, subjectId: row.subject_id });
      const was = before.get(row.url);
      if (was === undefined || row.subject_id === null) continue;
      const wasCounted = was !== 'hallucinated';
      const isCounted = row.status !== 'hallucinated';
      if (wasCounted === isCounted) continue;
      const flip = flips.get(row.subject_id) ?? { into: [], outOf: [] };
      flips.set(row.subject_id, flip);
      (isCounted ? flip.into : flip.outOf).push(row.id);
    }
    for (const [subjectId, flip] of [...flips].sort(([a], [b]) => (a < b ? -1 : 1))) {
      await shiftSubjectCitations(tx, context.projectId, flip.into, subjectId, 1);
      await shiftSubjectCitations(tx, context.projectId, flip.outOf, subjectId, -1);
    }
  }
  return urls;
}

type RollupDimensions = 'project_id' | 'grouping' | 'day' | 'engine_id' | 'topic_id' | 'location' | 'branded';
type RunDelta = Omit<RunRollupTable, RollupDimensions>;
type SubjectDelta = Omit<SubjectRollupTable, RollupDimensions | 'subject_id'>;

const SEP = '\u0000';
const cellKey = (c: CubeCell, day: string) => [c.grouping, c.engine_id, c.topic_id, c.location, c.branded, day].join(SEP);

/**
 * Adds the batch's runs to the rollups: every run to its 16 cube cells (rollup-cube.ts), summed in
 * memory first, then one upsert per rollup and chunk, in key order so concurrent imports cannot
 * deadlock.
 */
async function addToRollups(tx: Transaction<DB>, context: ProjectContext, runs: Prepared[], urls: Map<string, CitedUrl>): Promise<void> {
  const runDeltas = new Map<string, RunDelta>();
  const subjectDeltas = new Map<string, SubjectDelta>();
  const citationDeltas = new Map<string, number>();
  for (const { record, mentions } of runs) {
    const cells = cellsOf(context.engines.get(record.engine)!, topicOf(context, record), record.location, record.branded);
    for (const cell of cells) {
      const key = cellKey(cell, record.day);
      const run = runDeltas.get(key) ?? { ok_runs: 0, failed_runs: 0, mentions: 0 };
      runDeltas.set(key, run);
      if (record.status === 'failed') {
        run.failed_runs++;
        continue;
      }
      run.ok_runs++;
      const subjectDelta = (subjectId: string): SubjectDelta => {
        const subjectKey = `${key}${SEP}${subjectId}`;
        let d = subjectDeltas.get(subjectKey);
        if (!d) {
          d = { mention_runs: 0, mentions: 0, position_sum: 0, position_count: 0, sentiment_sum: 0, sentiment_count: 0, citations: 0 };
          subjectDeltas.set(subjectKey, d);
        }
        return d;
      };
      for (const m of mentions) {
        run.mentions += m.count;
        const d = subjectDelta(m.subject.id);
        d.mention_runs++;
        d.mentions += m.count;
        if (m.position !== null) {
          d.position_sum += m.position;
          d.position_count++;
        }
        if (m.sentiment !== null) {
          d.sentiment_sum += m.sentiment;
          d.sentiment_count++;
        }
      }
      for (const c of record.citations) {
        const url = urls.get(c.url)!;
        const citationKey = `${key}${SEP}${url.id}`;
        citationDeltas.set(citationKey, (citationDeltas.get(citationKey) ?? 0) + 1);
        if (url.subjectId !== null && url.status !== 'hallucinated') subjectDelta(url.subjectId).citations++;
      }
    }
  }
  const rowOf = (key: string) => {
    const [grouping, engine_id, topic_id, location, branded, day, extra] = key.split(SEP) as [string, string, string, string, string, string, string | undefined];
    const cell = { project_id: context.projectId, grouping: Number(grouping), engine_id, topic_id, location, branded: branded === 'true', day };
    return { cell, extra };
  };
  const sorted = <T>(m: Map<string, T>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

  await incrementRollup(tx, 'run_rollup', [], RUN_SUMS, sorted(runDeltas).map(([key, d]) => ({ ...rowOf(key).cell, ...d })));
  await incrementRollup(
    tx,
    'subject_rollup',
    [['subject_id', 'uuid']],
    SUBJECT_SUMS,
    sorted(subjectDeltas).map(([key, d]) => {
      const { cell, extra } = rowOf(key);
      return { ...cell, subject_id: extra!, ...d };
    }),
  );
  await incrementRollup(
    tx,
    'citation_rollup',
    [['url_id', 'uuid']],
    [['citations', 'integer']],
    sorted(citationDeltas).map(([key, citations]) => {
      const { cell, extra } = rowOf(key);
      return { ...cell, url_id: extra!, citations };
    }),
  );
}

type Column = readonly [name: string, type: string];
const CELL_KEY: Column[] = [
  ['project_id', 'uuid'],
  ['grouping', 'smallint'],
  ['engine_id', 'uuid'],
  ['topic_id', 'uuid'],
  ['location', 'text'],
  ['branded', 'boolean'],
  ['day', 'date'],
];
const RUN_SUMS: Column[] = [
  ['ok_runs', 'integer'],
  ['failed_runs', 'integer'],
  ['mentions', 'bigint'],
];
const SUBJECT_SUMS: Column[] = [
  ['mention_runs', 'integer'],
  ['mentions', 'bigint'],
  ['position_sum', 'bigint'],
  ['position_count', 'integer'],
  ['sentiment_sum', 'double precision'],
  ['sentiment_count', 'integer'],
  ['citations', 'bigint'],
];

/**
 * Adds rows to a rollup: a new key is inserted, an existing one has its sums increased. One
 * statement per chunk, the rows passed as one array per column (`unnest`), which keeps the
 * statement small however many rows it carries. Rows must have distinct keys, in key order.
 */
async function incrementRollup(
  tx: Transaction<DB>,
  table: 'run_rollup' | 'subject_rollup' | 'citation_rollup',
  extraKey: Column[],
  sums: Column[],
  rows: Record<string, unknown>[],
): Promise<void> {
  const key = [...CELL_KEY, ...extraKey];
  const columns = [...key, ...sums];
  for (const part of chunks(rows, 5_000)) {
    const arrays = columns.map(([name, type]) => sql`${part.map((row) => row[name])}::${sql.raw(type)}[]`);
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map(([name]) => sql.ref(name)))})
      select * from unnest(${sql.join(arrays)})
      on conflict (${sql.join(key.map(([name]) => sql.ref(name)))})
      do update set ${sql.join(sums.map(([name]) => sql`${sql.ref(name)} = ${sql.table(table)}.${sql.ref(name)} + excluded.${sql.ref(name)}`))}`.execute(tx);
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
