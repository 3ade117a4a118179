import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code. The numbers below are this
// migration's own copies: 1,000 pages per project, day and kind, overflow under '(other)'.

export async function up(db: Kysely<any>): Promise<void> {
  // Each AI crawler hit and AI-referred visit was written here one row each and never read: the
  // report reads traffic_daily. Dropped, with the session ids beacon callers sent.
  await db.schema.dropTable('traffic_hits').execute();

  // The dedupe hashes get the UTC day of their line, so that they can be pruned once a line of
  // that day would be refused as too old anyway. Hashes kept so far get the day they were stored
  // (their lines were accepted whatever their age; that day is never earlier than the upload).
  await db.schema.alterTable('ingest_lines').addColumn('day', 'date').execute();
  await sql`update ingest_lines set day = (created_at at time zone 'UTC')::date`.execute(db);
  await db.schema.alterTable('ingest_lines').alterColumn('day', (c) => c.setNotNull()).execute();
  await db.schema.createIndex('ingest_lines_day_idx').on('ingest_lines').column('day').execute();

  // Page first in the key: finding a page of a day and kind, and counting a day's pages, read the
  // index alone. The same columns, so every upsert's conflict target is unchanged.
  await sql`alter table traffic_daily drop constraint traffic_daily_pk`.execute(db);
  await sql`alter table traffic_daily add constraint traffic_daily_pk primary key (project_id, day, kind, path, platform, bot)`.execute(db);

  // Days stored before the cap keep their 1,000 most hit pages; the hits of the rest move to
  // '(other)' under their platform and bot, so every total stays what it was.
  await sql`
    with pages as (
      select project_id, day, kind, path,
             row_number() over (partition by project_id, day, kind order by sum(hits) desc, path collate "C") as rank
      from traffic_daily
      where path <> '(other)'
      group by project_id, day, kind, path
    ),
    moved as (
      delete from traffic_daily t
      using pages p
      where p.rank > 1000 and t.project_id = p.project_id and t.day = p.day and t.kind = p.kind and t.path = p.path
      returning t.project_id, t.day, t.kind, t.platform, t.bot, t.hits
    )
    insert into traffic_daily (project_id, day, kind, path, platform, bot, hits)
    select project_id, day, kind, '(other)', platform, bot, sum(hits)
    from moved
    group by project_id, day, kind, platform, bot
    on conflict (project_id, day, kind, path, platform, bot) do update set hits = traffic_daily.hits + excluded.hits
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // Pages folded into '(other)' stay folded: their paths are gone.
  await sql`alter table traffic_daily drop constraint traffic_daily_pk`.execute(db);
  await sql`alter table traffic_daily add constraint traffic_daily_pk primary key (project_id, day, kind, platform, bot, path)`.execute(db);
  await db.schema.dropIndex('ingest_lines_day_idx').execute();
  await db.schema.alterTable('ingest_lines').dropColumn('day').execute();
  await db.schema
    .createTable('traffic_hits')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('crawler', 'visit')`))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('bot', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text')
    .execute();
  await db.schema.createIndex('traffic_hits_project_day_idx').on('traffic_hits').columns(['project_id', 'day']).execute();
}
