import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { plainArray, textArray } from '../db/array-literal.ts';
import { mapCooperatively } from './cooperate.ts';
import type { ResolvedRun } from './resolve-run.ts';
import type { WriteContext } from './write-context.ts';

/** Topics and prompts a batch creates, with the ids minted for them. */
export interface NewNames {
  topics: { id: string; name: string }[];
  /** A prompt's topic and brandedness are those it is first seen with. */
  prompts: { id: string; text: string; topicId: string | null; branded: boolean }[];
}

/** The runs' rows, one array literal per column (array-literal.ts). */
export type RunColumns = Record<(typeof COLUMNS)[number][0], string>;

const COLUMNS = [
  ['id', 'uuid'],
  ['engine_id', 'uuid'],
  ['prompt_id', 'uuid'],
  ['topic_id', 'uuid'],
  ['location', 'text'],
  ['branded', 'boolean'],
  ['ran_at', 'timestamptz'],
  ['day', 'date'],
  ['status', 'text'],
  ['answer', 'text'],
  ['mention_subject_ids', 'uuid[]'],
  ['mention_positions', 'smallint[]'],
  ['mention_counts', 'smallint[]'],
  ['mention_sentiments', 'double precision[]'],
  ['cited_url_ids', 'uuid[]'],
  ['check_id', 'uuid'],
  ['provider', 'text'],
  ['model', 'text'],
  ['surface', 'text'],
  ['latency_ms', 'integer'],
  ['cost_usd', 'double precision'],
  ['source_urls', 'text[]'],
  ['fan_out_queries', 'text[]'],
  ['reason', 'text'],
  ['sentiment_method', 'text'],
] as const;

/**
 * The runs' rows, serialized: one row a run, holding what it contains (mentions as parallel
 * arrays, the pages it cites as an ordered array of URL ids). Only completed runs carry mentions
 * and citations.
 */
export async function runColumns(
  context: WriteContext,
  runs: readonly ResolvedRun[],
  ids: { prompt: (text: string) => string; topic: (name: string | undefined) => string | null; page: (url: string) => string },
  pause: () => Promise<void> | undefined = () => undefined,
): Promise<RunColumns> {
  const map = <T>(value: (run: ResolvedRun) => T) => mapCooperatively(runs, value, pause);
  const plain = async (value: (run: ResolvedRun) => string | boolean | null) => plainArray(await map(value));
  const text = async (value: (run: ResolvedRun) => string | null) => textArray(await map(value));
  // Each run's own array is one text element, cast to its type by the statement.
  const nested = (value: (run: ResolvedRun) => readonly (string | number | null)[]) => text((run) => (run.record.status === 'ok' ? plainArray(value(run)) : '{}'));
  return {
    id: await plain((r) => r.id),
    engine_id: await plain((r) => context.engines.get(r.record.engine)!),
    prompt_id: await plain((r) => ids.prompt(r.record.prompt)),
    topic_id: await plain((r) => ids.topic(r.record.topic)),
    location: await text((r) => r.record.location),
    branded: await plain((r) => r.record.branded),
    ran_at: await plain((r) => r.record.ranAt.toISOString()),
    day: await plain((r) => r.record.day),
    status: await plain((r) => r.record.status),
    answer: await text((r) => r.record.answer ?? null),
    mention_subject_ids: await nested((r) => r.mentions.map((m) => m.subject.id)),
    mention_positions: await nested((r) => r.mentions.map((m) => m.position)),
    mention_counts: await nested((r) => r.mentions.map((m) => m.count)),
    mention_sentiments: await nested((r) => r.mentions.map((m) => m.sentiment)),
    cited_url_ids: await nested((r) => r.citations.map((c) => ids.page(c.url))),
    ...(await provenanceColumns(runs, plain, text)),
  };
}

/** Provenance of sampled runs; imported runs leave every column null (one null array when none of the batch has any). */
async function provenanceColumns(
  runs: readonly ResolvedRun[],
  plain: (value: (run: ResolvedRun) => string | boolean | null) => Promise<string>,
  text: (value: (run: ResolvedRun) => string | null) => Promise<string>,
): Promise<Pick<RunColumns, 'check_id' | 'provider' | 'model' | 'surface' | 'latency_ms' | 'cost_usd' | 'source_urls' | 'fan_out_queries' | 'reason' | 'sentiment_method'>> {
  const of = (r: ResolvedRun) => r.record.provenance;
  const list = (value: readonly string[] | undefined) => (value === undefined ? null : textArray(value));
  return {
    check_id: await plain((r) => of(r)?.checkId ?? null),
    provider: await text((r) => of(r)?.provider ?? null),
    model: await text((r) => of(r)?.model ?? null),
    surface: await text((r) => of(r)?.surface ?? null),
    latency_ms: await plain((r) => (of(r) ? String(Math.round(of(r)!.latencyMs)) : null)),
    cost_usd: await plain((r) => (of(r)?.costUsd == null ? null : String(of(r)!.costUsd))),
    source_urls: await text((r) => list(of(r)?.sourceUrls)),
    fan_out_queries: await text((r) => list(of(r)?.fanOutQueries)),
    reason: await text((r) => of(r)?.reason ?? null),
    sentiment_method: await text((r) => r.record.sentiment?.method ?? null),
  };
}

/**
 * The write-runs step: the rows in one statement (`unnest` of the column literals). A run whose
 * id the project holds already is not written again (an import run twice lands each run once):
 * the ids that landed are returned.
 */
export async function insertRuns(tx: Transaction<DB>, projectId: string, columns: RunColumns): Promise<Set<string>> {
  const names = sql.join(COLUMNS.map(([name]) => sql.ref(name)));
  const casts = sql.join(COLUMNS.map(([name, type]) => (type.endsWith('[]') ? sql`${sql.ref(name)}::${sql.raw(type)}` : sql.ref(name))));
  const arrays = sql.join(COLUMNS.map(([name, type]) => sql`${columns[name]}::${sql.raw(type.endsWith('[]') ? 'text' : type)}[]`));
  const inserted = await sql<{ id: string }>`insert into runs (project_id, ${names})
    select ${projectId}::uuid, ${casts} from unnest(${arrays}) as t(${names})
    on conflict (project_id, id) do nothing
    returning id`.execute(tx);
  return new Set(inserted.rows.map((row) => row.id));
}

/** The ads beside the completed runs' answers, where there are any. */
export async function insertAds(tx: Transaction<DB>, projectId: string, runs: readonly ResolvedRun[]): Promise<void> {
  const rows = runs
    .filter((r) => r.record.status === 'ok')
    .flatMap(({ id, ads }) => ads.map((ad, ordinal) => ({ run_id: id, project_id: projectId, ordinal, advertiser: ad.advertiser, url: ad.url ?? null, competitor_id: ad.competitor?.id ?? null })));
  for (let i = 0; i < rows.length; i += 1_000) await tx.insertInto('run_ads').values(rows.slice(i, i + 1_000)).execute();
}

/**
 * The topics and prompts a batch names for the first time, with their minted ids. The caller has
 * checked, under the project lock, that the project holds none of them.
 */
export async function insertNames(tx: Transaction<DB>, context: WriteContext, names: NewNames): Promise<void> {
  const scope = { workspace_id: context.workspaceId, project_id: context.projectId };
  for (let i = 0; i < names.topics.length; i += 1_000) {
    await tx.insertInto('topics').values(names.topics.slice(i, i + 1_000).map(({ id, name }) => ({ id, name, ...scope }))).execute();
  }
  for (let i = 0; i < names.prompts.length; i += 1_000) {
    await tx
      .insertInto('prompts')
      .values(names.prompts.slice(i, i + 1_000).map((p) => ({ id: p.id, text: p.text, topic_id: p.topicId, branded: p.branded, ...scope })))
      .execute();
  }
}

/**
 * Which of the names and pages given the project holds after all (with their ids, and the pages'
 * states): those an earlier writer created that the context had not read yet.
 */
export async function findNames(
  tx: Transaction<DB>,
  projectId: string,
  wanted: { topics: string[]; prompts: string[] },
): Promise<{ topics: Map<string, string>; prompts: Map<string, string> }> {
  const topics = new Map<string, string>();
  const prompts = new Map<string, string>();
  if (wanted.topics.length) {
    const rows = await sql<{ id: string; name: string }>`select id, name from topics where project_id = ${projectId} and lower(name) = any(${textArray(wanted.topics)}::text[])`.execute(tx);
    for (const row of rows.rows) topics.set(row.name.toLowerCase(), row.id);
  }
  for (let i = 0; i < wanted.prompts.length; i += 5_000) {
    const part = wanted.prompts.slice(i, i + 5_000);
    const rows = await sql<{ id: string; text: string }>`select id, text from prompts where project_id = ${projectId} and text = any(${textArray(part)}::text[])`.execute(tx);
    for (const row of rows.rows) prompts.set(row.text, row.id);
  }
  return { topics, prompts };
}
