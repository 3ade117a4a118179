import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.
//
// Storage for a million runs a day, distributable (Citus):
// - Every primary key and unique index carries the distribution column: `project_id` for a
//   project's data (`id` for projects itself), `workspace_id` for a workspace's (`id` for
//   workspaces itself); `engines` and `api_keys` are reference tables (small, replicated). Foreign
//   keys stay only where both sides share a distribution column (or point at a reference table),
//   and not on runs (their write path guarantees them; the checks were most of an insert's cost).
// - What a run contains is kept in the run's own row: its mentions as parallel arrays (subject,
//   position, count, sentiment), the pages it cites as an ordered array of URL ids (a GIN index
//   finds the runs citing a page). One row a run instead of four or five. `runs.workspace_id`
//   goes (the project says it).
// - The rollups keep nine of the sixteen cube cells: the detail (every dimension, grouping 0), each
//   single filter (7 engine, 11 topic, 13 location, 14 branded), none (15), and the three pairs
//   without the topic (5, 6, 12); any other read sums the few detail cells that match. A subject's sample is kept as the runs
//   that did not track it (rare), so a run writes rows only for the subjects it names or cites.
// - The per-URL citation cube (16 rows per cited URL per run, 74% of the database) goes. Per URL,
//   single-filter or no-filter cell and month, one row holds the citations of the month's days as
//   running totals (`url_days.cumulative[d]`: days 1 to d), so a range's count is one subtraction
//   and its last cited day one array_position, without unnesting. At the detail (every dimension,
//   read only for two filters or more) a URL is cited on a few days a month: there, per cell and
//   day, each write appends one row listing the pages cited and how often (`cell_pages`), never
//   updated. The citations endpoint groups by domain and the URL's current status when it reads,
//   so a status change moves nothing.
// - Rollup and cited-page pages keep room (fillfactor 70) so increments are HOT updates, pruned
//   without vacuum.
// - Change detection reads its groupings through small partial indexes keyed by the window.
// - `projects.data_version` and `workspaces.data_version` move with every write of what they
//   show: read caches key on them.
// - A competitor's backfill walks runs in id order (no index on recording time needed).

const NIL = '00000000-0000-0000-0000-000000000000';
/** The cube cells kept: detail; engine and location, engine and brandedness, location and brandedness; engine, topic, location, branded; none. */
const KEPT = [0, 5, 6, 7, 11, 12, 13, 14, 15];
/** The cells kept per URL and month (the detail is in cell_pages). */
const URL_KEPT = [7, 11, 13, 14, 15];

export async function up(db: Kysely<any>): Promise<void> {
  await distributionKeys(db);

  // Backfills walk runs in id order now. One left unfinished restarts: its mentions so far go.
  await sql`delete from run_mentions m using subject_backfills b, runs r
    where b.done_at is null and b.after_run_id is not null and m.project_id = b.project_id and m.subject_id = b.subject_id
      and r.project_id = m.project_id and r.id = m.run_id and r.created_at < b.until`.execute(db);
  await sql`update subject_backfills set after_run_id = null where done_at is null`.execute(db);
  await db.schema.alterTable('subject_backfills').dropColumn('after_created_at').execute();
  await db.schema.dropIndex('runs_project_created_idx').execute();
  await contentsIntoRuns(db);

  for (const table of ['citation_rollup', 'subject_rollup', 'run_rollup']) await db.schema.dropTable(table).execute();
  const cell = (t: any) =>
    t
      .addColumn('project_id', 'uuid', (c: any) => c.notNull())
      .addColumn('grouping', 'smallint', (c: any) => c.notNull())
      .addColumn('engine_id', 'uuid', (c: any) => c.notNull())
      .addColumn('topic_id', 'uuid', (c: any) => c.notNull())
      .addColumn('location', 'text', (c: any) => c.notNull())
      .addColumn('branded', 'boolean', (c: any) => c.notNull());
  const key = ['project_id', 'grouping', 'engine_id', 'topic_id', 'location', 'branded'];
  await cell(db.schema.createTable('run_rollup'))
    .addColumn('day', 'date', (c: any) => c.notNull())
    .addColumn('ok_runs', 'integer', (c: any) => c.notNull())
    .addColumn('failed_runs', 'integer', (c: any) => c.notNull())
    .addColumn('mentions', 'integer', (c: any) => c.notNull())
    .addPrimaryKeyConstraint('run_rollup_pk', [...key, 'day'])
    .execute();
  await cell(db.schema.createTable('subject_rollup'))
    .addColumn('day', 'date', (c: any) => c.notNull())
    .addColumn('subject_id', 'uuid', (c: any) => c.notNull())
    // Completed runs of the cell that did not track the subject (recorded before it was added and
    // not searched by its backfill): its sample is the cell's ok_runs minus these.
    .addColumn('untracked_runs', 'integer', (c: any) => c.notNull())
    .addColumn('mention_runs', 'integer', (c: any) => c.notNull())
    .addColumn('mentions', 'integer', (c: any) => c.notNull())
    .addColumn('position_sum', 'integer', (c: any) => c.notNull())
    .addColumn('position_count', 'integer', (c: any) => c.notNull())
    .addColumn('sentiment_sum', 'double precision', (c: any) => c.notNull())
    .addColumn('sentiment_count', 'integer', (c: any) => c.notNull())
    .addColumn('citations', 'integer', (c: any) => c.notNull())
    .addColumn('citing_runs', 'integer', (c: any) => c.notNull())
    .addPrimaryKeyConstraint('subject_rollup_pk', [...key, 'day', 'subject_id'])
    .execute();
  // One partition per cell kept: a read takes one cell's rows, which then sit together on pages
  // of their own rather than one among the rows of every cell written with it.
  await sql`create table url_days (
      project_id uuid not null, grouping smallint not null, engine_id uuid not null, topic_id uuid not null,
      location text not null, branded boolean not null, month date not null, url_id uuid not null,
      -- Element d (1-based): the URL's citations on days 1 to d of the month, in completed runs of the cell.
      cumulative integer[] not null,
      constraint url_days_pk primary key (project_id, grouping, engine_id, topic_id, location, branded, month, url_id)
    ) partition by list (grouping)`.execute(db);
  for (const [name, grouping] of [['engine', 7], ['topic', 11], ['location', 13], ['branded', 14], ['none', 15]] as const) {
    await sql`create table ${sql.table(`url_days_${name}`)} partition of url_days for values in (${sql.lit(grouping)}) with (fillfactor = 70)`.execute(db);
  }
  await db.schema
    .createTable('cell_pages')
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('engine_id', 'uuid', (c) => c.notNull())
    .addColumn('topic_id', 'uuid', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('branded', 'boolean', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    // The write (a batch) that added the row: rows are appended, never updated.
    .addColumn('write_id', 'uuid', (c) => c.notNull())
    // Parallel arrays: each page cited in the cell that day (in that write), and how many times.
    .addColumn('url_ids', sql`uuid[]`, (c) => c.notNull())
    .addColumn('counts', sql`integer[]`, (c) => c.notNull())
    .addPrimaryKeyConstraint('cell_pages_pk', ['project_id', 'engine_id', 'topic_id', 'location', 'branded', 'day', 'write_id'])
    .execute();
  // cited_urls too: each batch moves its pages' status time.
  for (const table of ['run_rollup', 'subject_rollup', 'cited_urls']) await sql`alter table ${sql.table(table)} set (fillfactor = 70)`.execute(db);
  for (const table of ['run_rollup', 'subject_rollup']) {
    await sql`create index ${sql.ref(`${table}_detect_idx`)} on ${sql.table(table)} (project_id, grouping, day) where grouping in (7, 15)`.execute(db);
  }

  await db.schema.alterTable('projects').addColumn('data_version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('workspaces').addColumn('data_version', 'bigint', (c) => c.notNull().defaultTo(0)).execute();

  await rebuildRollups(db);
}

/** Primary keys, unique indexes and foreign keys a distributed database accepts. */
async function distributionKeys(db: Kysely<any>): Promise<void> {
  const dropFk = (table: string, column: string) =>
    sql`alter table ${sql.table(table)} drop constraint if exists ${sql.ref(`${table}_${column}_fkey`)}`.execute(db);
  // Foreign keys across the two distribution columns, or from the api_keys reference table.
  for (const table of ['projects', 'competitors', 'topics', 'prompts', 'runs', 'cited_urls', 'change_events']) await dropFk(table, 'workspace_id');
  await dropFk('api_keys', 'workspace_id');
  await dropFk('api_keys', 'project_id');
  // Runs keep no foreign keys: checking four per run cost more than all else its insert does
  // (2.0 of 2.8 s for 94,500 runs), and the one write path (src/runs/record-runs.ts) takes every
  // id it writes from the project's own rows, in the same transaction, under the project lock.
  for (const column of ['project_id', 'engine_id', 'prompt_id', 'topic_id']) await dropFk('runs', column);
  await dropFk('prompts', 'topic_id');
  await sql`alter table run_citations drop constraint if exists run_citations_url_id_fkey`.execute(db);
  await sql`alter table webhook_deliveries drop constraint if exists webhook_deliveries_webhook_id_fkey`.execute(db);

  const rekey = async (table: string, columns: string[]) => {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.ref(`${table}_pkey`)}`.execute(db);
    await sql`alter table ${sql.table(table)} add constraint ${sql.ref(`${table}_pk`)} primary key (${sql.join(columns.map((c) => sql.ref(c)))})`.execute(db);
  };
  for (const table of ['competitors', 'topics', 'prompts', 'cited_urls', 'change_events']) await rekey(table, ['project_id', 'id']);
  for (const table of ['credit_ledger', 'webhooks', 'webhook_deliveries']) await rekey(table, ['workspace_id', 'id']);

  await sql`alter table prompts add constraint prompts_topic_fk foreign key (project_id, topic_id) references topics (project_id, id)`.execute(db);
  await db.schema.dropIndex('webhook_deliveries_event_idx').execute();
  await sql`create unique index webhook_deliveries_event_idx on webhook_deliveries (workspace_id, webhook_id, event_id)`.execute(db);
  await sql`alter table webhook_deliveries add constraint webhook_deliveries_webhook_fk foreign key (workspace_id, webhook_id) references webhooks (workspace_id, id)`.execute(db);
}

/** Mentions and citations move into their run's row; their tables go. */
async function contentsIntoRuns(db: Kysely<any>): Promise<void> {
  await sql`alter table runs
    add column mention_subject_ids uuid[] not null default '{}',
    add column mention_positions smallint[] not null default '{}',
    add column mention_counts smallint[] not null default '{}',
    add column mention_sentiments double precision[] not null default '{}',
    add column cited_url_ids uuid[] not null default '{}'`.execute(db);
  await sql`update runs r set
      mention_subject_ids = m.subjects, mention_positions = m.positions, mention_counts = m.counts, mention_sentiments = m.sentiments
    from (
      select project_id, run_id, array_agg(subject_id order by position nulls last, subject_id) as subjects,
        array_agg(position::smallint order by position nulls last, subject_id) as positions,
        array_agg(count::smallint order by position nulls last, subject_id) as counts,
        array_agg(sentiment order by position nulls last, subject_id) as sentiments
      from run_mentions group by project_id, run_id
    ) m
    where r.project_id = m.project_id and r.id = m.run_id`.execute(db);
  await sql`update runs r set cited_url_ids = c.urls
    from (
      select project_id, run_id, array_agg(url_id order by first) as urls
      from (select project_id, run_id, url_id, min(ordinal) as first from run_citations group by project_id, run_id, url_id) d
      group by project_id, run_id
    ) c
    where r.project_id = c.project_id and r.id = c.run_id`.execute(db);
  await db.schema.dropTable('run_mentions').execute();
  await db.schema.dropTable('run_citations').execute();
  await sql`create index runs_cited_urls_idx on runs using gin (cited_url_ids) where cardinality(cited_url_ids) > 0`.execute(db);
  await db.schema.alterTable('runs').dropColumn('workspace_id').execute();
}

/**
 * Every rollup rebuilt from the runs, the way the import keeps them (src/runs/cube-deltas.ts): the
 * nine cells kept of the cube of the four filter dimensions (url_days: the five single or no-filter
 * cells; cell_pages: the detail); a subject's untracked runs (recorded
 * before it was added and not searched by its backfill); a run cites a page once; a subject's
 * citations are those of the pages it owns, hallucinated ones excluded; per URL and month the
 * running total of its citations, day by day.
 */
export async function rebuildRollups(db: Kysely<any>): Promise<void> {
  for (const table of ['run_rollup', 'subject_rollup', 'url_days', 'cell_pages']) await sql`delete from ${sql.table(table)}`.execute(db);
  const cellColumns = sql`grouping(r.engine_id, r.topic_key, r.location, r.branded)::smallint as g,
      coalesce(r.engine_id, ${NIL}::uuid) as e, coalesce(r.topic_key, ${NIL}::uuid) as t, coalesce(r.location, '') as l, coalesce(r.branded, false) as b`;
  const cube = sql`cube(r.engine_id, r.topic_key, r.location, r.branded)`;
  const withTopic = (where: string) => sql.raw(`(select runs.*, coalesce(runs.topic_id, '${NIL}'::uuid) as topic_key from runs ${where})`);
  const okRuns = withTopic(`where status = 'ok'`);
  const kept = sql`where x.g in (${sql.join(KEPT)})`;
  const dims = sql`project_id, grouping, engine_id, topic_id, location, branded, day`;
  const subjectKey = sql`(${dims}, subject_id)`;
  const subjectColumns = sql`untracked_runs, mention_runs, mentions, position_sum, position_count, sentiment_sum, sentiment_count, citations, citing_runs`;

  await sql`insert into run_rollup (${dims}, ok_runs, failed_runs, mentions)
    select * from (
      select r.project_id, ${cellColumns}, r.day, count(*) filter (where r.status = 'ok'), count(*) filter (where r.status = 'failed'),
        coalesce(sum(m.total) filter (where r.status = 'ok'), 0)
      from ${withTopic('')} r
      left join lateral (select sum(c) as total from unnest(r.mention_counts) c) m on true
      group by r.project_id, r.day, ${cube}
    ) x ${kept}`.execute(db);

  await sql`insert into subject_rollup (${dims}, subject_id, ${subjectColumns})
    select * from (
      select r.project_id, ${cellColumns}, r.day, m.subject_id, 0, count(*), sum(m.count), coalesce(sum(m.position), 0), count(m.position),
        coalesce(sum(m.sentiment), 0), count(m.sentiment), 0, 0
      from ${okRuns} r
      cross join lateral unnest(r.mention_subject_ids, r.mention_positions, r.mention_counts, r.mention_sentiments) as m(subject_id, position, count, sentiment)
      group by r.project_id, r.day, m.subject_id, ${cube}
    ) x ${kept}`.execute(db);

  await sql`insert into subject_rollup (${dims}, subject_id, ${subjectColumns})
    select * from (
      select r.project_id, ${cellColumns}, r.day, s.id, count(*), 0, 0, 0, 0, 0, 0, 0, 0
      from ${okRuns} r
      join (
        select id, id as project_id, created_at, true as brand from projects
        union all select id, project_id, created_at, false from competitors
      ) s on s.project_id = r.project_id
      left join subject_backfills b on b.project_id = s.project_id and b.subject_id = s.id
      -- Untracked: recorded before the competitor was added, and not searched by its backfill (no
      -- answer text, or not reached yet). The brand is tracked in every run.
      where not (s.brand or r.created_at >= s.created_at
        or (r.answer is not null and r.created_at < b.until and (b.done_at is not null or r.id <= b.after_run_id)))
      group by r.project_id, r.day, s.id, ${cube}
    ) x ${kept}
    on conflict ${subjectKey} do update set untracked_runs = excluded.untracked_runs`.execute(db);

  const cited = sql`(select r.project_id, r.id as run_id, u.url_id from runs r cross join lateral unnest(r.cited_url_ids) as u(url_id) where r.status = 'ok')`;
  await sql`insert into subject_rollup (${dims}, subject_id, ${subjectColumns})
    select * from (
      select r.project_id, ${cellColumns}, r.day, c.subject_id, 0, 0, 0, 0, 0, 0, 0, sum(c.citations), count(*)
      from ${okRuns} r
      join (
        select rc.project_id, rc.run_id, u.subject_id, count(*) as citations
        from ${cited} rc join cited_urls u on u.project_id = rc.project_id and u.id = rc.url_id
        where u.subject_id is not null and u.status <> 'hallucinated'
        group by rc.project_id, rc.run_id, u.subject_id
      ) c on c.project_id = r.project_id and c.run_id = r.id
      group by r.project_id, r.day, c.subject_id, ${cube}
    ) x ${kept}
    on conflict ${subjectKey} do update set citations = excluded.citations, citing_runs = excluded.citing_runs`.execute(db);

  await sql`insert into url_days (project_id, grouping, engine_id, topic_id, location, branded, month, url_id, cumulative)
    select project_id, g, e, t, l, b, month, url_id,
      array(select count(*) filter (where d <= i)::int from unnest(days) as z(d) right join generate_series(1, 31) i on true group by i order by i)
    from (
      select r.project_id, ${cellColumns}, date_trunc('month', r.day)::date as month, rc.url_id,
        array_agg(extract(day from r.day)::int) as days
      from ${okRuns} r join ${cited} rc on rc.project_id = r.project_id and rc.run_id = r.id
      group by r.project_id, date_trunc('month', r.day), rc.url_id, ${cube}
    ) x where x.g in (${sql.join(URL_KEPT)})`.execute(db);

  await sql`insert into cell_pages (project_id, engine_id, topic_id, location, branded, day, write_id, url_ids, counts)
    select project_id, engine_id, topic_key, location, branded, day, gen_random_uuid(), array_agg(url_id order by url_id), array_agg(n order by url_id)
    from (
      select r.project_id, r.engine_id, r.topic_key, r.location, r.branded, r.day, rc.url_id, count(*)::int as n
      from ${okRuns} r join ${cited} rc on rc.project_id = r.project_id and rc.run_id = r.id
      group by 1, 2, 3, 4, 5, 6, 7
    ) x
    group by 1, 2, 3, 4, 5, 6`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('2026-11-24-0010-scale cannot be undone: restore a backup instead');
}
