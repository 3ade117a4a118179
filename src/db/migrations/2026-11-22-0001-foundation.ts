import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code. Later shapes go in new migrations.

const ENGINES = [
  ['d8a40115-fbae-474e-b2c3-a7154879bd61', 'chatgpt', 'ChatGPT'],
  ['d65d9924-4055-40f3-a4a9-5dbe354b976d', 'perplexity', 'Perplexity'],
  ['a703cf61-2fb3-4147-9fbf-c3967625fed7', 'gemini', 'Gemini'],
  ['376ac5fc-2a9c-475f-998c-c051738c7026', 'google_ai_overviews', 'Google AI Overviews'],
  ['6fe3561a-49c1-4cc2-8c58-2c3ff0660257', 'google_ai_mode', 'Google AI Mode'],
  ['5ad76ef8-e71b-4b5b-a5d7-5d3e1dfeb19b', 'claude', 'Claude'],
  ['b2e88738-1d29-4f5d-90f3-e8d2899fd10f', 'copilot', 'Copilot'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('api_access', 'boolean')
    .addColumn('credits_enforced', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('daily_ceiling_usd', 'numeric(14, 2)', (c) => c.notNull().defaultTo(50))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();

  await db.schema
    .createTable('projects')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('color', 'text')
    .addColumn('aliases', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.schema.createIndex('projects_workspace_idx').on('projects').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('competitors')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('color', 'text')
    .addColumn('aliases', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.schema.createIndex('competitors_project_idx').on('competitors').columns(['project_id', 'created_at']).execute();

  // A reference table (the same rows everywhere), not tenant data.
  await db.schema
    .createTable('engines')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db
    .insertInto('engines')
    .values(ENGINES.map(([id, key, label], position) => ({ id, key, label, position })))
    .execute();

  await db.schema
    .createTable('topics')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'uuid', (c) => c.notNull().references('projects.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await sql`create unique index topics_project_name_idx on topics (project_id, lower(name))`.execute(db);

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('project_id', 'uuid', (c) => c.references('projects.id'))
    .addColumn('name', 'text')
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', sql`text[]`, (c) => c.notNull())
    .addColumn('rate_limit', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_workspace_idx').on('api_keys').column('workspace_id').execute();

  await db.schema
    .createTable('credit_periods')
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('period', 'date', (c) => c.notNull())
    .addColumn('allowance', 'numeric(14, 4)', (c) => c.notNull())
    .addColumn('rollover', 'numeric(14, 4)', (c) => c.notNull())
    .addPrimaryKeyConstraint('credit_periods_pk', ['workspace_id', 'period'])
    .execute();

  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('grant', 'consume')`))
    .addColumn('credits', 'numeric(14, 4)', (c) => c.notNull().check(sql`credits >= 0`))
    .addColumn('action', 'text')
    .addColumn('engine_key', 'text')
    .addColumn('note', 'text')
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
  await db.schema.createIndex('credit_ledger_workspace_idx').on('credit_ledger').columns(['workspace_id', 'day']).execute();

  await db.schema
    .createTable('credit_daily')
    .addColumn('workspace_id', 'uuid', (c) => c.notNull().references('workspaces.id'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('granted', 'numeric(14, 4)', (c) => c.notNull().defaultTo(0))
    .addColumn('consumed', 'numeric(14, 4)', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('credit_daily_pk', ['workspace_id', 'day'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'credit_daily',
    'credit_ledger',
    'credit_periods',
    'api_keys',
    'topics',
    'engines',
    'competitors',
    'projects',
    'workspaces',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
