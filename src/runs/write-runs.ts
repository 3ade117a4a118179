import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import type { ResolvedRun } from './resolve-run.ts';
import type { PageIds } from './upsert-cited-urls.ts';

export interface WriteContext {
  workspaceId: string;
  projectId: string;
  engines: ReadonlyMap<string, string>;
}

/** What the batch's runs refer to by name: topic and prompt ids, by lower-cased topic name and prompt text. */
export interface RunNames {
  topics: Map<string, string>;
  prompts: Map<string, string>;
}

export const topicOf = (names: RunNames, topic: string | undefined): string | null =>
  topic === undefined ? null : (names.topics.get(topic.toLowerCase()) ?? null);

/** The topics and prompts the runs name, created on first use. */
export async function ensureNames(tx: Transaction<DB>, context: WriteContext, runs: readonly ResolvedRun[]): Promise<RunNames> {
  const topics = await ensureTopics(tx, context, runs);
  return { topics, prompts: await ensurePrompts(tx, context, runs, topics) };
}

/**
 * The write-runs step: one row a run, holding what it contains (mentions as parallel arrays, the
 * pages it cites as an ordered array of URL ids), written with one statement per chunk of rows
 * (`unnest`); then the ads beside answers, where there are any. A run whose id the project holds
 * already is not written again (an import run twice lands each run once): the runs that landed
 * are returned.
 */
export async function insertRuns(
  tx: Transaction<DB>,
  context: WriteContext,
  runs: readonly ResolvedRun[],
  names: RunNames,
  pageIds: PageIds,
): Promise<ResolvedRun[]> {
  const landedIds = new Set<string>();
  for (let i = 0; i < runs.length; i += 2_000) {
    const part = runs.slice(i, i + 2_000);
    const column = <T>(type: string, value: (run: ResolvedRun) => T) => sql`${part.map(value)}::${sql.raw(type)}[]`;
    // Arrays of arrays do not unnest into rows; each run's array travels as its text form.
    const array = (type: string, value: (run: ResolvedRun) => readonly unknown[]) =>
      sql`${part.map((run) => pgArray(value(run)))}::text[]`;
    const completed = (run: ResolvedRun) => run.record.status === 'ok';
    const inserted = await sql`insert into runs (id, project_id, engine_id, prompt_id, topic_id, location, branded, ran_at, day, status, answer,
        mention_subject_ids, mention_positions, mention_counts, mention_sentiments, cited_url_ids)
      select id, ${context.projectId}::uuid, engine_id, prompt_id, topic_id, location, branded, ran_at, day, status, answer,
        mention_subject_ids::uuid[], mention_positions::smallint[], mention_counts::smallint[], mention_sentiments::double precision[], cited_url_ids::uuid[]
      from unnest(${sql.join([
        column('uuid', (r) => r.id),
        column('uuid', (r) => context.engines.get(r.record.engine)!),
        column('uuid', (r) => names.prompts.get(r.record.prompt)!),
        column('uuid', (r) => topicOf(names, r.record.topic)),
        column('text', (r) => r.record.location),
        column('boolean', (r) => r.record.branded),
        column('timestamptz', (r) => r.record.ranAt.toISOString()),
        column('date', (r) => r.record.day),
        column('text', (r) => r.record.status),
        column('text', (r) => r.record.answer ?? null),
        array('uuid', (r) => (completed(r) ? r.mentions.map((m) => m.subject.id) : [])),
        array('smallint', (r) => (completed(r) ? r.mentions.map((m) => m.position) : [])),
        array('smallint', (r) => (completed(r) ? r.mentions.map((m) => m.count) : [])),
        array('double precision', (r) => (completed(r) ? r.mentions.map((m) => m.sentiment) : [])),
        array('uuid', (r) => (completed(r) ? r.citations.map((c) => pageIds.get(c.url)!.id) : [])),
      ])}) as t(id, engine_id, prompt_id, topic_id, location, branded, ran_at, day, status, answer,
        mention_subject_ids, mention_positions, mention_counts, mention_sentiments, cited_url_ids)
      on conflict (project_id, id) do nothing
      returning id`.execute(tx);
    for (const row of (inserted as { rows: { id: string }[] }).rows) landedIds.add(row.id);
  }
  const landed = runs.filter((r) => landedIds.has(r.id));

  const adRows = landed
    .filter((r) => r.record.status === 'ok')
    .flatMap(({ id, ads }) =>
      ads.map((ad, ordinal) => ({ run_id: id, project_id: context.projectId, ordinal, advertiser: ad.advertiser, url: ad.url ?? null, competitor_id: ad.competitor?.id ?? null })),
    );
  for (let i = 0; i < adRows.length; i += 1_000) await tx.insertInto('run_ads').values(adRows.slice(i, i + 1_000)).execute();
  return landed;
}

/** An array's PostgreSQL text form (`{a,b,NULL}`), elements quoted. */
function pgArray(values: readonly unknown[]): string {
  return `{${values.map((v) => (v === null || v === undefined ? 'NULL' : `"${String(v).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`)).join(',')}}`;
}

/** A topic is created by its first spelling and matched case-insensitively. */
async function ensureTopics(tx: Transaction<DB>, context: WriteContext, runs: readonly ResolvedRun[]): Promise<Map<string, string>> {
  const wanted = new Map<string, string>();
  for (const { record } of runs) if (record.topic !== undefined && !wanted.has(record.topic.toLowerCase())) wanted.set(record.topic.toLowerCase(), record.topic);
  if (wanted.size === 0) return new Map();
  await tx
    .insertInto('topics')
    .values([...wanted.values()].map((name) => ({ id: randomUUID(), workspace_id: context.workspaceId, project_id: context.projectId, name })))
    .onConflict((oc) => oc.doNothing())
    .execute();
  const rows = await tx
    .selectFrom('topics')
    .select(['id', 'name'])
    .where('project_id', '=', context.projectId)
    .where(sql<string>`lower(name)`, 'in', [...wanted.keys()])
    .execute();
  return new Map(rows.map((row) => [row.name.toLowerCase(), row.id]));
}

/** A prompt is its exact text within the project; its topic and brandedness are those it was first seen with. */
async function ensurePrompts(tx: Transaction<DB>, context: WriteContext, runs: readonly ResolvedRun[], topics: Map<string, string>): Promise<Map<string, string>> {
  const wanted = new Map<string, ResolvedRun['record']>();
  for (const { record } of runs) if (!wanted.has(record.prompt)) wanted.set(record.prompt, record);
  const out = new Map<string, string>();
  const names = { topics, prompts: out };
  const records = [...wanted.values()];
  for (let i = 0; i < records.length; i += 1_000) {
    const part = records.slice(i, i + 1_000);
    await tx
      .insertInto('prompts')
      .values(
        part.map((record) => ({
          id: randomUUID(),
          workspace_id: context.workspaceId,
          project_id: context.projectId,
          text: record.prompt,
          topic_id: topicOf(names, record.topic),
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
    for (const row of rows) out.set(row.text, row.id);
  }
  return out;
}
