import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { addDays } from '../analytics/filters.ts';
import { enqueueDeliveries } from '../webhooks/enqueue-deliveries.ts';
import { evaluateChanges, KIND_LABELS, LOOKBACK_DAYS, type AdSighting, type DayCounts, type Scope, type SubjectInfo } from './evaluate-changes.ts';

/** Rollup groupings read here: every dimension summed (all engines), and all but the engine. */
const ALL_ENGINES = 15;
const PER_ENGINE = 7;

/**
 * Re-evaluates the days runs landed on and the seven days after (whose compared day may be one of
 * them), and makes the stored events of those days what the evaluation says: new events are added,
 * events whose evidence disappeared are removed, and an event found again keeps its id and the
 * time it was first detected. Idempotent: running it again changes nothing.
 */
export async function detectChanges(db: Kysely<DB>, projectId: string, landedDays: Iterable<string>, now: Date = new Date()): Promise<void> {
  const evaluated = [...new Set([...landedDays].flatMap((day) => Array.from({ length: LOOKBACK_DAYS + 1 }, (_, i) => addDays(day, i))))].sort();
  if (evaluated.length === 0) return;
  const from = addDays(evaluated[0]!, -LOOKBACK_DAYS);
  const to = evaluated.at(-1)!;

  const project = await db.selectFrom('projects').select(['id', 'workspace_id', 'name']).where('id', '=', projectId).executeTakeFirstOrThrow();
  const competitors = await db.selectFrom('competitors').select(['id', 'name']).where('project_id', '=', projectId).orderBy('created_at').execute();
  const subjects: SubjectInfo[] = [
    { id: project.id, type: 'brand', name: project.name },
    ...competitors.map((c) => ({ id: c.id, type: 'competitor' as const, name: c.name })),
  ];
  const engines = await db.selectFrom('engines').select(['id', 'label']).orderBy('position').execute();
  const scopes = await loadScopes(db, projectId, from, to, engines);
  const ads = await loadAds(db, projectId, evaluated);
  const events = evaluateChanges(evaluated, scopes, subjects, ads);

  await db.transaction().execute(async (tx) => {
    const existing = await tx
      .selectFrom('change_events')
      .select(['id', 'key'])
      .where('project_id', '=', projectId)
      .where('day', 'in', evaluated)
      .execute();
    const keep = new Set(events.map((e) => e.key));
    const known = new Set(existing.map((e) => e.key));
    const gone = existing.filter((e) => !keep.has(e.key)).map((e) => e.id);
    if (gone.length) await tx.deleteFrom('change_events').where('id', 'in', gone).execute();
    for (let i = 0; i < events.length; i += 500) {
      await tx
        .insertInto('change_events')
        .values(
          events.slice(i, i + 500).map((e) => ({
            id: randomUUID(),
            workspace_id: project.workspace_id,
            project_id: projectId,
            key: e.key,
            day: e.day,
            kind: e.kind,
            subject_type: e.subjectType,
            subject_id: e.subjectId,
            engine_id: e.engineId,
            summary: e.summary,
            detail: JSON.stringify(e.detail),
            detected_at: now,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['project_id', 'key'])
            .doUpdateSet({ summary: sql`excluded.summary`, detail: sql`excluded.detail` })
            // Unchanged events are left as they are: no write, no dead row.
            .where(sql<boolean>`change_events.summary is distinct from excluded.summary or change_events.detail is distinct from excluded.detail`),
        )
        .execute();
    }
    // New events (not updates of known ones) go out to the workspace's webhooks.
    const fresh = events.filter((e) => !known.has(e.key)).map((e) => e.key);
    if (fresh.length > 0) {
      const stored = await tx
        .selectFrom('change_events')
        .select(['id', 'key', 'detected_at'])
        .where('project_id', '=', projectId)
        .where('key', 'in', fresh)
        .execute();
      const byKey = new Map(events.map((e) => [e.key, e]));
      const names = new Map(subjects.map((s) => [s.id, s.name]));
      const labels = new Map(engines.map((e) => [e.id, e.label]));
      await enqueueDeliveries(
        tx,
        project.workspace_id,
        stored.map((row) => {
          const e = byKey.get(row.key)!;
          return {
            type: 'change_event' as const,
            projectId,
            event: {
              id: row.id,
              day: e.day,
              kind: e.kind,
              kindLabel: KIND_LABELS[e.kind],
              subjectType: e.subjectType,
              subjectName: names.get(e.subjectId) ?? '',
              engineLabel: e.engineId ? (labels.get(e.engineId) ?? null) : null,
              summary: e.summary,
              detail: e.detail,
              detectedAt: row.detected_at.toISOString(),
            },
          };
        }),
        now,
      );
    }
  });
}

async function loadScopes(
  db: Kysely<DB>,
  projectId: string,
  from: string,
  to: string,
  engines: { id: string; label: string }[],
): Promise<Scope[]> {
  const scopeKey = (grouping: number, engineId: string) => (grouping === ALL_ENGINES ? 'all' : engineId);
  const scopes = new Map<string, Scope>([
    ['all', { engineId: null, engineLabel: null, days: new Map() }],
    ...engines.map((e) => [e.id, { engineId: e.id, engineLabel: e.label, days: new Map() }] as const),
  ]);
  const dayOf = (key: string, day: string): DayCounts | undefined => {
    const scope = scopes.get(key);
    if (!scope) return undefined;
    let counts = scope.days.get(day);
    if (!counts) {
      counts = { n: 0, mentionRuns: new Map(), citedUrls: new Map() };
      scope.days.set(day, counts);
    }
    return counts;
  };

  const runs = await db
    .selectFrom('run_rollup')
    .select(['grouping', 'engine_id', 'day', 'ok_runs'])
    .where('project_id', '=', projectId)
    .where('grouping', 'in', [ALL_ENGINES, PER_ENGINE])
    .where('day', '>=', from)
    .where('day', '<=', to)
    .execute();
  for (const r of runs) {
    const counts = dayOf(scopeKey(r.grouping, r.engine_id), r.day);
    if (counts) counts.n += r.ok_runs;
  }

  const mentions = await db
    .selectFrom('subject_rollup')
    .select(['grouping', 'engine_id', 'day', 'subject_id', 'mention_runs'])
    .where('project_id', '=', projectId)
    .where('grouping', 'in', [ALL_ENGINES, PER_ENGINE])
    .where('day', '>=', from)
    .where('day', '<=', to)
    .where('mention_runs', '>', 0)
    .execute();
  for (const m of mentions) {
    const counts = dayOf(scopeKey(m.grouping, m.engine_id), m.day);
    counts?.mentionRuns.set(m.subject_id, (counts.mentionRuns.get(m.subject_id) ?? 0) + m.mention_runs);
  }

  const cited = await db
    .selectFrom('citation_rollup as c')
    .innerJoin('cited_urls as u', 'u.id', 'c.url_id')
    .select(['c.grouping', 'c.engine_id', 'c.day', 'u.subject_id', 'u.url', 'c.citations'])
    .where('c.project_id', '=', projectId)
    .where('c.grouping', 'in', [ALL_ENGINES, PER_ENGINE])
    .where('c.day', '>=', from)
    .where('c.day', '<=', to)
    .where('u.subject_id', 'is not', null)
    .where('u.status', '<>', 'hallucinated')
    .execute();
  for (const c of cited) {
    const counts = dayOf(scopeKey(c.grouping, c.engine_id), c.day);
    if (!counts || c.subject_id === null) continue;
    const urls = counts.citedUrls.get(c.subject_id) ?? new Map<string, number>();
    counts.citedUrls.set(c.subject_id, urls);
    urls.set(c.url, (urls.get(c.url) ?? 0) + c.citations);
  }
  return [...scopes.values()];
}

/** Competitors' ads shown with answers to branded prompts, per day, engine, competitor and prompt. */
async function loadAds(db: Kysely<DB>, projectId: string, days: string[]): Promise<AdSighting[]> {
  const rows = await db
    .selectFrom('run_ads as a')
    .innerJoin('runs as r', 'r.id', 'a.run_id')
    .innerJoin('prompts as p', 'p.id', 'r.prompt_id')
    .innerJoin('engines as e', 'e.id', 'r.engine_id')
    .select((eb) => [
      'r.day',
      'r.engine_id',
      'e.label',
      'a.competitor_id',
      'r.prompt_id',
      'p.text',
      eb.fn.min('a.advertiser').as('advertiser'),
      eb.fn.min('a.url').as('url'),
      sql<number>`count(distinct r.id)`.as('runs'),
    ])
    .where('a.project_id', '=', projectId)
    .where('r.project_id', '=', projectId)
    .where('r.day', 'in', days)
    .where('r.status', '=', 'ok')
    .where('r.branded', '=', true)
    .where('a.competitor_id', 'is not', null)
    .groupBy(['r.day', 'r.engine_id', 'e.label', 'a.competitor_id', 'r.prompt_id', 'p.text'])
    .execute();
  return rows.map((r) => ({
    day: r.day,
    engineId: r.engine_id,
    engineLabel: r.label,
    competitorId: r.competitor_id!,
    promptId: r.prompt_id,
    prompt: r.text,
    advertiser: r.advertiser,
    url: r.url,
    runs: Number(r.runs),
  }));
}
