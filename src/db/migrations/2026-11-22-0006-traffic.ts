import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

export async function up(db: Kysely<any>): Promise<void> {
  // Every accepted server-log line, by the SHA-256 of its raw text: the database enforces that a
  // line counts once per project, however often and however concurrently it is uploaded.
  await db.schema
    .createTable('ingest_lines')
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    .addColumn('line_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addPrimaryKeyConstraint('ingest_lines_pk', ['project_id', 'line_hash'])
    .execute();

  // Each AI crawler hit and AI-referred visit, from logs or the beacon. No IP address is kept.
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

  // Per project, day, kind, platform, bot ('' for visits) and page: what the traffic endpoint reads.
  await db.schema
    .createTable('traffic_daily')
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('bot', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('traffic_daily_pk', ['project_id', 'day', 'kind', 'platform', 'bot', 'path'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['traffic_daily', 'traffic_hits', 'ingest_lines']) await db.schema.dropTable(table).execute();
}
