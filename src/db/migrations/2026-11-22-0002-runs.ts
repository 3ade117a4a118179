import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.
//
// Runs and what they contain, and the rollups every analytics read is served from. In rollup keys
// "no topic" is the nil UUID and "no location" the empty string, so the keys can be primary keys.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('prompts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('topic_id', 'uuid', (c) => c.references('topics.id'))
    .addColumn('branded', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.schema.createIndex('prompts_project_text_idx').on('prompts').columns(['project_id', 'text']).unique().execute();

  await db.schema
    .createTable('runs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    .addColumn('engine_id', 'uuid', (c) => c.notNull().references('engines.id'))
    .addColumn('prompt_id', 'uuid', (c) => c.notNull().references('prompts.id'))
    .addColumn('topic_id', 'uuid', (c) => c.references('topics.id'))
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('branded', 'boolean', (c) => c.notNull())
    .addColumn('ran_at', 'timestamptz', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('ok', 'failed')`))
    .addColumn('answer', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.schema.createIndex('runs_project_day_idx').on('runs').columns(['project_id', 'day']).execute();

  await db.schema
    .createTable('run_mentions')
    .addColumn('run_id', 'uuid', (c) => c.notNull().references('runs.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('subject_type', 'text', (c) => c.notNull().check(sql`subject_type in ('brand', 'competitor')`))
    .addColumn('subject_id', 'uuid', (c) => c.notNull())
    .addColumn('position', 'integer')
    .addColumn('sentiment', 'double precision')
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('run_mentions_pk', ['run_id', 'subject_id'])
    .execute();

  await db.schema
    .createTable('cited_urls')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('article_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_at', 'timestamptz', (c) => c.notNull())
    .addColumn('subject_type', 'text')
    .addColumn('subject_id', 'uuid')
    .execute();
  await db.schema.createIndex('cited_urls_project_url_idx').on('cited_urls').columns(['project_id', 'url']).unique().execute();
  await db.schema.createIndex('cited_urls_project_domain_idx').on('cited_urls').columns(['project_id', 'domain']).execute();

  await db.schema
    .createTable('run_citations')
    .addColumn('run_id', 'uuid', (c) => c.notNull().references('runs.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addColumn('url_id', 'uuid', (c) => c.notNull().references('cited_urls.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('article_type', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('run_citations_pk', ['run_id', 'ordinal'])
    .execute();

  await db.schema
    .createTable('run_ads')
    .addColumn('run_id', 'uuid', (c) => c.notNull().references('runs.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('ordinal', 'integer', (c) => c.notNull())
    .addColumn('advertiser', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('competitor_id', 'uuid')
    .addPrimaryKeyConstraint('run_ads_pk', ['run_id', 'ordinal'])
    .execute();

  const dims = (t: any) =>
    t
      .addColumn('project_id', 'uuid', (c: any) => c.notNull())
      .addColumn('day', 'date', (c: any) => c.notNull())
      .addColumn('engine_id', 'uuid', (c: any) => c.notNull())
      .addColumn('topic_id', 'uuid', (c: any) => c.notNull())
      .addColumn('location', 'text', (c: any) => c.notNull())
      .addColumn('branded', 'boolean', (c: any) => c.notNull());

  // Per run slice: completed and failed runs, and all tracked subjects' mentions (share of voice).
  await dims(db.schema.createTable('run_rollup'))
    .addColumn('ok_runs', 'integer', (c: any) => c.notNull())
    .addColumn('failed_runs', 'integer', (c: any) => c.notNull())
    .addColumn('mentions', 'bigint', (c: any) => c.notNull())
    .addPrimaryKeyConstraint('run_rollup_pk', ['project_id', 'day', 'engine_id', 'topic_id', 'location', 'branded'])
    .execute();

  // Per run slice and subject, over completed runs only.
  await dims(db.schema.createTable('subject_rollup'))
    .addColumn('subject_id', 'uuid', (c: any) => c.notNull())
    .addColumn('mention_runs', 'integer', (c: any) => c.notNull())
    .addColumn('mentions', 'bigint', (c: any) => c.notNull())
    .addColumn('position_sum', 'bigint', (c: any) => c.notNull())
    .addColumn('position_count', 'integer', (c: any) => c.notNull())
    .addColumn('sentiment_sum', 'double precision', (c: any) => c.notNull())
    .addColumn('sentiment_count', 'integer', (c: any) => c.notNull())
    .addPrimaryKeyConstraint('subject_rollup_pk', ['project_id', 'day', 'engine_id', 'topic_id', 'location', 'branded', 'subject_id'])
    .execute();
  await db.schema
    .createIndex('subject_rollup_subject_idx')
    .on('subject_rollup')
    .columns(['project_id', 'subject_id', 'day'])
    .execute();

  // Per run slice and cited URL, over completed runs only; the URL's status is read at query time.
  await dims(db.schema.createTable('citation_rollup'))
    .addColumn('url_id', 'uuid', (c: any) => c.notNull())
    .addColumn('citations', 'integer', (c: any) => c.notNull())
    .addPrimaryKeyConstraint('citation_rollup_pk', ['project_id', 'day', 'engine_id', 'topic_id', 'location', 'branded', 'url_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['citation_rollup', 'subject_rollup', 'run_rollup', 'run_ads', 'run_citations', 'cited_urls', 'run_mentions', 'runs', 'prompts']) {
    await db.schema.dropTable(table).execute();
  }
}
