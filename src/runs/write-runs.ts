import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import type { ResolvedRun } from './resolve-run.ts';
import type { CitedUrl } from './upsert-cited-urls.ts';

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

/**
 * The write-runs step, first half: the topics and prompts the runs name (created on first use),
 * then the runs themselves. A run whose id the project already holds is not written again (an
 * import run twice lands each run once). Returns the runs that landed.
 */
export async function insertRuns(tx: Transaction<DB>, context: WriteContext, runs: readonly ResolvedRun[]): Promise<{ landed: ResolvedRun[]; names: RunNames }> {
  const names = { topics: await ensureTopics(tx, context, runs), prompts: new Map<string, string>() };
  names.prompts = await ensurePrompts(tx, context, runs, names.topics);
  const inserted = new Set<string>();
  for (let i = 0; i < runs.length; i += 1_000) {
    const rows = await tx
      .insertInto('runs')
      .values(
        runs.slice(i, i + 1_000).map(({ id, record }) => ({
          id,
          workspace_id: context.workspaceId,
          project_id: context.projectId,
          engine_id: context.engines.get(record.engine)!,
          prompt_id: names.prompts.get(record.prompt)!,
          topic_id: topicOf(names, record.topic),
          location: record.location,
          branded: record.branded,
          ran_at: record.ranAt,
          day: record.day,
          status: record.status,
          answer: record.answer ?? null,
        })),
      )
      .onConflict((oc) => oc.columns(['project_id', 'id']).doNothing())
      .returning('id')
      .execute();
    for (const row of rows) inserted.add(row.id);
  }
  return { landed: runs.filter((r) => inserted.has(r.id)), names };
}

/**
 * The write-runs step, second half: what the completed runs contain. Mentions of tracked subjects,
 * each cited page once (by its row in cited_urls), and ads with the competitor behind them.
 */
export async function insertContents(tx: Transaction<DB>, context: WriteContext, runs: readonly ResolvedRun[], urls: ReadonlyMap<string, CitedUrl>): Promise<void> {
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
  for (let i = 0; i < mentionRows.length; i += 1_000) await tx.insertInto('run_mentions').values(mentionRows.slice(i, i + 1_000)).execute();

  const citationRows = runs.flatMap(({ id, citations }) =>
    citations.map((c, ordinal) => ({ run_id: id, project_id: context.projectId, ordinal, url_id: urls.get(c.url)!.id })),
  );
  for (let i = 0; i < citationRows.length; i += 1_000) await tx.insertInto('run_citations').values(citationRows.slice(i, i + 1_000)).execute();

  const adRows = runs.flatMap(({ id, ads }) =>
    ads.map((ad, ordinal) => ({
      run_id: id,
      project_id: context.projectId,
      ordinal,
      advertiser: ad.advertiser,
      url: ad.url ?? null,
      competitor_id: ad.competitor?.id ?? null,
    })),
  );
  for (let i = 0; i < adRows.length; i += 1_000) await tx.insertInto('run_ads').values(adRows.slice(i, i + 1_000)).execute();
}

export const topicOf = (names: RunNames, topic: string | undefined): string | null =>
  topic === undefined ? null : (names.topics.get(topic.toLowerCase()) ?? null);

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
