import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code (the URL rule below is a copy of
// src/runs/normalize-url.ts as it stood when this was written).
//
// - A run's identity is its id within its project: an id used by another project is another run.
// - Cited URLs are kept by their normalised form (no fragment, tracking parameters or trailing
//   slash); the first raw form is kept for display. Variants already stored are merged.
// - A subject counts only in the runs that tracked it (`tracked_runs`: the runs recorded after it
//   was added, and older runs with answer text once a backfill has searched them); the runs citing
//   its pages (`citing_runs`) give citation events a sample size.
// - Days waiting for change detection are rows (`pending_detections`), written with the runs; new
//   change events wait for their webhooks in `change_events.published_at`.
// The rollups are rebuilt from the runs with the rules above (`rebuildRollups`, also used by a test).

const NIL = '00000000-0000-0000-0000-000000000000';

export async function up(db: Kysely<any>): Promise<void> {
  await scopeRunIdsToProjects(db);
  await mergeUrlVariants(db);

  await db.schema.alterTable('subject_rollup').addColumn('tracked_runs', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('subject_rollup').addColumn('citing_runs', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  // A competitor's search of the answers recorded before it was added: resumable, once per subject.
  await db.schema
    .createTable('subject_backfills')
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    .addColumn('subject_id', 'uuid', (c) => c.notNull())
    // Runs recorded before this moment (and not after it) are the backfill's.
    .addColumn('until', 'timestamptz', (c) => c.notNull())
    // The last run searched, in (created_at, id) order; null before the first batch.
    .addColumn('after_created_at', 'timestamptz')
    .addColumn('after_run_id', 'uuid')
    .addColumn('done_at', 'timestamptz')
    .addPrimaryKeyConstraint('subject_backfills_pk', ['project_id', 'subject_id'])
    .execute();
  await sql`insert into subject_backfills (project_id, subject_id, until)
    select c.project_id, c.id, c.created_at from competitors c
    where exists (select 1 from runs r where r.project_id = c.project_id and r.created_at < c.created_at and r.answer is not null)`.execute(db);
  await db.schema.createIndex('runs_project_created_idx').on('runs').columns(['project_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('pending_detections')
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('queued_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint('pending_detections_pk', ['project_id', 'day'])
    .execute();

  await db.schema.alterTable('change_events').addColumn('published_at', 'timestamptz').execute();
  await sql`update change_events set published_at = detected_at`.execute(db);
  await sql`create index change_events_unpublished_idx on change_events (detected_at) where published_at is null`.execute(db);

  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'timestamptz').execute();
  // A delivery claimed by an instance is sent by it alone until the claim lapses.
  await db.schema.alterTable('webhook_deliveries').addColumn('claimed_until', 'timestamptz').execute();
  await db.schema.createIndex('run_citations_url_idx').on('run_citations').columns(['project_id', 'url_id']).execute();

  await rebuildRollups(db);
}

async function scopeRunIdsToProjects(db: Kysely<any>): Promise<void> {
  for (const table of ['run_mentions', 'run_citations', 'run_ads']) {
    await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.ref(`${table}_run_id_fkey`)}`.execute(db);
    await sql`alter table ${sql.table(table)} drop constraint if exists ${sql.ref(`${table}_pk`)}`.execute(db);
  }
  await sql`alter table runs drop constraint runs_pkey`.execute(db);
  await sql`alter table runs add constraint runs_pk primary key (project_id, id)`.execute(db);
  await sql`alter table run_mentions add constraint run_mentions_pk primary key (project_id, run_id, subject_id)`.execute(db);
  await sql`alter table run_citations add constraint run_citations_pk primary key (project_id, run_id, ordinal)`.execute(db);
  await sql`alter table run_ads add constraint run_ads_pk primary key (project_id, run_id, ordinal)`.execute(db);
  for (const table of ['run_mentions', 'run_citations', 'run_ads']) {
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_run_fk`)}
      foreign key (project_id, run_id) references runs (project_id, id)`.execute(db);
  }
  // Per-citation copies of the URL's status and type were never read: the URL's own are.
  await db.schema.alterTable('run_citations').dropColumn('status').dropColumn('article_type').execute();
}

const TRACKING = new Set([
  'gclid', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'yclid', 'twclid', 'ttclid', 'li_fat_id',
  'mc_cid', 'mc_eid', 'igshid', '_ga', '_gl', '_hsenc', '_hsmi', 'mkt_tok', 'ref', 'ref_src', 'ref_url', 'srsltid', 'spm',
]);

function normalizeUrl(raw: string): string {
  const url = new URL(raw);
  url.hash = '';
  url.username = '';
  url.password = '';
  if (url.search !== '') {
    const kept = [...url.searchParams].filter(([name]) => !name.toLowerCase().startsWith('utm_') && !TRACKING.has(name.toLowerCase()));
    const before = url.search.slice(1).split('&').filter((p) => p !== '');
    if (kept.length !== before.length) url.search = new URLSearchParams(kept).toString();
    else if (before.length === 0) url.search = '';
  }
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url.href;
}

/** Variants of one page become one cited URL: its citations move to the one kept, the latest status wins. */
async function mergeUrlVariants(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('cited_urls').addColumn('display_url', 'text').execute();
  await sql`update cited_urls set display_url = url`.execute(db);
  const rows = (await sql<{ id: string; project_id: string; url: string; status: string; status_at: Date }>`
    select id, project_id, url, status, status_at from cited_urls order by project_id, status_at, id`.execute(db)).rows;
  const groups = new Map<string, typeof rows>();
  for (const row of rows) {
    const key = `${row.project_id} ${normalizeUrl(row.url)}`;
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  for (const [key, group] of groups) {
    const normalized = key.slice(key.indexOf(' ') + 1);
    const [keeper, ...others] = group;
    if (!keeper) continue;
    if (others.length > 0) {
      const latest = group.reduce((a, b) => (b.status_at > a.status_at ? b : a));
      const ids = others.map((o) => o.id);
      await sql`update run_citations set url_id = ${keeper.id} where url_id in (${sql.join(ids)})`.execute(db);
      await sql`delete from citation_rollup where url_id in (${sql.join(ids)})`.execute(db);
      await sql`delete from cited_urls where id in (${sql.join(ids)})`.execute(db);
      await sql`update cited_urls set status = ${latest.status}, status_at = ${latest.status_at} where id = ${keeper.id}`.execute(db);
    }
    if (normalized !== keeper.url) await sql`update cited_urls set url = ${normalized} where id = ${keeper.id}`.execute(db);
  }
  // A run citing two variants of one page cites it once.
  await sql`delete from run_citations c using run_citations d
    where c.project_id = d.project_id and c.run_id = d.run_id and c.url_id = d.url_id and c.ordinal > d.ordinal`.execute(db);
  await sql`alter table cited_urls alter column display_url set not null`.execute(db);
}

/**
 * Every rollup rebuilt from the runs, the way the import keeps them (src/runs/cube-deltas.ts): the
 * cube of the four filter dimensions; a subject counts in the runs that tracked it; a run cites a
 * URL once; a subject's citations are those of the URLs it owns, hallucinated ones excluded.
 */
export async function rebuildRollups(db: Kysely<any>): Promise<void> {
  for (const table of ['run_rollup', 'subject_rollup', 'citation_rollup']) await sql`delete from ${sql.table(table)}`.execute(db);
  const cubeKey = sql`grouping(r.engine_id, r.topic_key, r.location, r.branded)::smallint,
      coalesce(r.engine_id, ${NIL}::uuid), coalesce(r.topic_key, ${NIL}::uuid), coalesce(r.location, ''), coalesce(r.branded, false), r.day`;
  const cube = sql`cube(r.engine_id, r.topic_key, r.location, r.branded)`;
  const okRuns = sql`(select runs.*, coalesce(runs.topic_id, ${NIL}::uuid) as topic_key from runs where status = 'ok')`;
  const dims = sql`project_id, grouping, engine_id, topic_id, location, branded, day`;
  const subjectKey = sql`(${dims}, subject_id)`;

  await sql`insert into run_rollup (${dims}, ok_runs, failed_runs, mentions)
    select r.project_id, ${cubeKey}, count(*) filter (where r.status = 'ok'), count(*) filter (where r.status = 'failed'),
      coalesce(sum(m.total) filter (where r.status = 'ok'), 0)
    from (select runs.*, coalesce(runs.topic_id, ${NIL}::uuid) as topic_key from runs) r
    left join (select project_id, run_id, sum(count) as total from run_mentions group by project_id, run_id) m
      on m.project_id = r.project_id and m.run_id = r.id
    group by r.project_id, r.day, ${cube}`.execute(db);

  await sql`insert into subject_rollup (${dims}, subject_id, tracked_runs, mention_runs, mentions, position_sum, position_count,
      sentiment_sum, sentiment_count, citations, citing_runs)
    select r.project_id, ${cubeKey}, m.subject_id, 0, count(*), sum(m.count), coalesce(sum(m.position), 0), count(m.position),
      coalesce(sum(m.sentiment), 0), count(m.sentiment), 0, 0
    from ${okRuns} r join run_mentions m on m.project_id = r.project_id and m.run_id = r.id
    group by r.project_id, r.day, m.subject_id, ${cube}`.execute(db);

  // Tracked: the brand always; a competitor in the runs recorded after it was added, and in the
  // runs with answer text its backfill has searched.
  await sql`insert into subject_rollup (${dims}, subject_id, tracked_runs, mention_runs, mentions, position_sum, position_count,
      sentiment_sum, sentiment_count, citations, citing_runs)
    select r.project_id, ${cubeKey}, s.id, count(*), 0, 0, 0, 0, 0, 0, 0, 0
    from ${okRuns} r
    join (
      select id, id as project_id, created_at, true as brand from projects
      union all select id, project_id, created_at, false from competitors
    ) s on s.project_id = r.project_id
    left join subject_backfills b on b.project_id = s.project_id and b.subject_id = s.id
    where s.brand or r.created_at >= s.created_at
      or (r.answer is not null and b.after_created_at is not null and (r.created_at, r.id) <= (b.after_created_at, b.after_run_id))
    group by r.project_id, r.day, s.id, ${cube}
    on conflict ${subjectKey} do update set tracked_runs = excluded.tracked_runs`.execute(db);

  await sql`insert into subject_rollup (${dims}, subject_id, tracked_runs, mention_runs, mentions, position_sum, position_count,
      sentiment_sum, sentiment_count, citations, citing_runs)
    select r.project_id, ${cubeKey}, c.subject_id, 0, 0, 0, 0, 0, 0, 0, sum(c.citations), count(*)
    from ${okRuns} r
    join (
      select rc.project_id, rc.run_id, u.subject_id, count(distinct rc.url_id) as citations
      from run_citations rc join cited_urls u on u.id = rc.url_id
      where u.subject_id is not null and u.status <> 'hallucinated'
      group by rc.project_id, rc.run_id, u.subject_id
    ) c on c.project_id = r.project_id and c.run_id = r.id
    group by r.project_id, r.day, c.subject_id, ${cube}
    on conflict ${subjectKey} do update set citations = excluded.citations, citing_runs = excluded.citing_runs`.execute(db);

  await sql`insert into citation_rollup (${dims}, url_id, citations)
    select r.project_id, ${cubeKey}, c.url_id, count(*)
    from ${okRuns} r join (select distinct project_id, run_id, url_id from run_citations) c on c.project_id = r.project_id and c.run_id = r.id
    group by r.project_id, r.day, c.url_id, ${cube}`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('2026-11-23-0009-trust cannot be undone: restore a backup instead');
}
