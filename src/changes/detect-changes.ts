import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { addDays } from '../analytics/filters.ts';
import { lockProject } from '../db/lock-project.ts';
import { markProjectChanged } from '../projects/mark-project-changed.ts';
import { NIL_UUID } from '../runs/rollup-cube.ts';
import { evaluateChanges, LOOKBACK_DAYS, type AdSighting, type DayCounts, type DetectedEvent, type Scope, type SubjectInfo } from './evaluate-changes.ts';

/** Rollup groupings read here: every dimension summed (all engines), and all but the engine. */
const ALL_ENGINES = 15;
const PER_ENGINE = 7;

/**
 * Drains the project's pending days (queue-detection.ts): evaluates them, and the seven days after
 * each (whose compared day may be one of them), and removes them from the queue, all in one
 * transaction under the project lock. A crash leaves them queued; nothing is lost, and running it
 * again changes nothing. Returns the number of days that were pending.
 */
export async function detectPendingChanges(db: Kysely<DB>, projectId: string, now: Date = new Date()): Promise<number> {
  return db.transaction().execute((tx) => detectPendingIn(tx, projectId, now));
}

/** detectPendingChanges in the caller's transaction. */
export async function detectPendingIn(tx: Transaction<DB>, projectId: string, now: Date): Promise<number> {
  await lockProject(tx, projectId);
  const pending = await tx.selectFrom('pending_detections').select('day').where('project_id', '=', projectId).execute();
  if (pending.length === 0) return 0;
  await evaluateDays(tx, projectId, pending.map((p) => p.day), now);
  await tx.deleteFrom('pending_detections').where('project_id', '=', projectId).where('day', 'in', pending.map((p) => p.day)).execute();
  await markProjectChanged(tx, projectId);
  return pending.length;
}

/** Evaluates given days (and the week after each) now, whatever is queued. */
export async function detectChanges(db: Kysely<DB>, projectId: string, days: Iterable<string>, now: Date = new Date()): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await lockProject(tx, projectId);
    await evaluateDays(tx, projectId, days, now);
  });
}

/**
 * Makes the stored events of the evaluated days what the evaluation says: new events are added
 * (unpublished: the webhook fan-out takes them from the table), events whose evidence disappeared
 * are removed, and an event found again keeps its id and the time it was first detected.
 */
async function evaluateDays(tx: Transaction<DB>, projectId: string, days: Iterable<string>, now: Date): Promise<void> {
  const evaluated = [...new Set([...days].flatMap((day) => Array.from({ length: LOOKBACK_DAYS + 1 }, (_, i) => addDays(day, i))))].sort();
  if (evaluated.length === 0) return;
  const from = addDays(evaluated[0]!, -LOOKBACK_DAYS);
  const to = evaluated.at(-1)!;

  const project = await tx.selectFrom('projects').select(['id', 'workspace_id', 'name']).where('id', '=', projectId).executeTakeFirstOrThrow();
  const competitors = await tx.selectFrom('competitors').select(['id', 'name']).where('project_id', '=', projectId).orderBy('created_at').execute();
  const subjects: SubjectInfo[] = [
    { id: project.id, type: 'brand', name: project.name },
    ...competitors.map((c) => ({ id: c.id, type: 'competitor' as const, name: c.name })),
  ];
  const engines = await tx.selectFrom('engines').select(['id', 'label']).orderBy('position').execute();
  const scopes = await loadScopes(tx, projectId, from, to, engines);
  const ads = await loadAds(tx, projectId, from, to);
  const events = await withCitedPages(tx, projectId, evaluateChanges(evaluated, scopes, subjects, ads));

  const existing = await tx.selectFrom('change_events').select(['id', 'key']).where('project_id', '=', projectId).where('day', 'in', evaluated).execute();
  const keep = new Set(events.map((e) => e.key));
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
          published_at: null,
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
}

async function loadScopes(
  tx: Transaction<DB>,
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
      counts = { n: 0, subjects: new Map() };
      scope.days.set(day, counts);
    }
    return counts;
  };

  const runs = await tx
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

  const subjectRows = await tx
    .selectFrom('subject_rollup')
    .select(['grouping', 'engine_id', 'day', 'subject_id', 'untracked_runs', 'mention_runs', 'citing_runs'])
    .where('project_id', '=', projectId)
    .where('grouping', 'in', [ALL_ENGINES, PER_ENGINE])
    .where('day', '>=', from)
    .where('day', '<=', to)
    .execute();
  for (const m of subjectRows) {
    const counts = dayOf(scopeKey(m.grouping, m.engine_id), m.day);
    if (!counts) continue;
    const s = counts.subjects.get(m.subject_id) ?? { untracked: 0, mentionRuns: 0, citingRuns: 0 };
    s.untracked += m.untracked_runs;
    s.mentionRuns += m.mention_runs;
    s.citingRuns += m.citing_runs;
    counts.subjects.set(m.subject_id, s);
  }
  return [...scopes.values()];
}

/** Competitors' ads shown with answers to branded prompts, per day, engine, competitor and prompt. */
async function loadAds(tx: Transaction<DB>, projectId: string, from: string, to: string): Promise<AdSighting[]> {
  const rows = await tx
    .selectFrom('run_ads as a')
    .innerJoin('runs as r', (join) => join.onRef('r.project_id', '=', 'a.project_id').onRef('r.id', '=', 'a.run_id'))
    .innerJoin('prompts as p', (join) => join.onRef('p.project_id', '=', 'r.project_id').onRef('p.id', '=', 'r.prompt_id'))
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
    .where('r.day', '>=', from)
    .where('r.day', '<=', to)
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

/** The evidence of citation events: the subject's pages cited on the event's day (or the compared day, for a loss). */
async function withCitedPages(tx: Transaction<DB>, projectId: string, events: DetectedEvent[]): Promise<DetectedEvent[]> {
  for (const e of events) {
    if (e.kind !== 'citation_gained' && e.kind !== 'citation_lost') continue;
    const day = e.kind === 'citation_gained' ? e.day : String(e.detail.prevDay);
    const rows = await tx
      .selectFrom('url_days as p')
      .innerJoin('cited_urls as u', (join) => join.onRef('u.project_id', '=', 'p.project_id').onRef('u.id', '=', 'p.url_id'))
      .select('u.url')
      .distinct()
      .where('p.project_id', '=', projectId)
      .where('p.grouping', '=', e.engineId === null ? 15 : 7)
      .where('p.engine_id', '=', e.engineId ?? NIL_UUID)
      .where('p.topic_id', '=', NIL_UUID)
      .where('p.location', '=', '')
      .where('p.branded', '=', false)
      .where('p.month', '=', `${day.slice(0, 8)}01`)
      // Cited that day: the running total grew (day 1: it is above zero).
      .where(sql<boolean>`p.cumulative[${Number(day.slice(8, 10))}::int] > coalesce(p.cumulative[${Number(day.slice(8, 10)) - 1}::int], 0)`)
      .where('u.subject_id', '=', e.subjectId)
      .where('u.status', '<>', 'hallucinated')
      .orderBy('u.url')
      .limit(20)
      .execute();
    e.detail = { ...e.detail, urls: rows.map((r) => r.url) };
  }
  return events;
}
