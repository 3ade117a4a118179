import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('change_events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    // What the event is about, stably: kind, subject, engine (or all), day and what else tells
    // two events apart. Re-detection updates the row with the same key; id and detected_at stay.
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'uuid', (c) => c.notNull())
    .addColumn('engine_id', 'uuid')
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('detail', 'jsonb', (c) => c.notNull())
    .addColumn('detected_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.schema.createIndex('change_events_key_idx').on('change_events').columns(['project_id', 'key']).unique().execute();
  await db.schema.createIndex('change_events_day_idx').on('change_events').columns(['project_id', 'day', 'detected_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_events').execute();
}
