import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.
//
// Sampling (operations.md section 6): the service asks the engines itself.
// - Prompts become managed: locations, engines (null: every configured engine), samples per
//   cycle, cadence, removal. Prompts an import created are `paused` and not `managed`: an import
//   never starts spending; `prompt add` with the same text takes the prompt over.
// - A run may be `no_answer` (the surface showed no AI answer) and keeps its provenance: provider,
//   model, surface, latency, the provider's cost, the pages the engine retrieved and the searches
//   it fanned out to, and the check it answers. Imported runs leave them null.
// - `checks`: one row per check identity (prompt, engine, location, UTC day, sample number), the
//   queue and the record of what happened to it. The unique identity makes a check run and charge
//   at most once; a claim (token and lease) makes one worker at a time own it, and only the owner
//   may record it.
// - Runs are listed newest first: the day index gains the run time and id.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table prompts
    add column locations text[] not null default '{}',
    add column engines text[],
    add column samples smallint not null default 1 check (samples between 1 and 100),
    add column cadence text not null default 'paused' check (cadence in ('daily', 'weekly', 'paused')),
    add column managed boolean not null default false,
    add column last_cycle_day date,
    add column removed_at timestamptz,
    add column updated_at timestamptz not null default clock_timestamp()`.execute(db);

  // The scheduler's question: which checked prompts have no cycle today yet.
  await sql`create index prompts_due_idx on prompts (last_cycle_day) where cadence <> 'paused' and removed_at is null`.execute(db);
  // A check's charge is recorded against its run.
  await sql`alter table credit_ledger add column run_project_id uuid, add column run_id uuid`.execute(db);
  // `prompt update ID` and `prompt remove ID` name a prompt without its project.
  await sql`create index prompts_id_idx on prompts (id)`.execute(db);

  await sql`alter table runs drop constraint runs_status_check`.execute(db);
  await sql`alter table runs add constraint runs_status_check check (status in ('ok', 'failed', 'no_answer'))`.execute(db);
  await sql`alter table runs
    add column check_id uuid,
    add column provider text,
    add column model text,
    add column surface text check (surface in ('api', 'serp')),
    add column latency_ms integer,
    add column cost_usd double precision,
    add column source_urls text[],
    add column fan_out_queries text[],
    add column reason text`.execute(db);
  await sql`create index runs_project_time_idx on runs (project_id, day, ran_at, id)`.execute(db);
  await sql`drop index runs_project_day_idx`.execute(db);

  await db.schema
    .createTable('checks')
    .addColumn('project_id', 'uuid', (c) => c.notNull())
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('workspace_id', 'uuid', (c) => c.notNull())
    .addColumn('prompt_id', 'uuid', (c) => c.notNull())
    .addColumn('engine', 'text', (c) => c.notNull())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('sample', 'smallint', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued').check(sql`state in ('queued', 'running', 'done')`))
    .addColumn('outcome', 'text', (c) => c.check(sql`outcome in ('ok', 'no_answer', 'failed', 'skipped')`))
    .addColumn('reason', 'text')
    .addColumn('run_after', 'timestamptz', (c) => c.notNull())
    .addColumn('attempts', 'smallint', (c) => c.notNull().defaultTo(0))
    .addColumn('claim', 'uuid')
    .addColumn('claimed_until', 'timestamptz')
    /** Credits held for the check while it runs (the balance and the ceiling count them), then charged. */
    .addColumn('credits', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('run_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .addColumn('finished_at', 'timestamptz')
    .addPrimaryKeyConstraint('checks_pk', ['project_id', 'id'])
    .addUniqueConstraint('checks_identity', ['project_id', 'prompt_id', 'engine', 'location', 'day', 'sample'])
    .execute();
  await sql`create index checks_due_idx on checks (run_after) where state = 'queued'`.execute(db);
  await sql`create index checks_running_idx on checks (provider, claimed_until) where state = 'running'`.execute(db);
  await sql`create index checks_workspace_running_idx on checks (workspace_id) where state = 'running'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('checks').execute();
  await sql`drop index prompts_id_idx`.execute(db);
  await sql`drop index prompts_due_idx`.execute(db);
  await sql`alter table credit_ledger drop column run_project_id, drop column run_id`.execute(db);
  await sql`create index runs_project_day_idx on runs (project_id, day)`.execute(db);
  await sql`drop index runs_project_time_idx`.execute(db);
  await sql`delete from runs where status = 'no_answer'`.execute(db);
  await sql`alter table runs drop constraint runs_status_check`.execute(db);
  await sql`alter table runs add constraint runs_status_check check (status in ('ok', 'failed'))`.execute(db);
  await sql`alter table runs drop column check_id, drop column provider, drop column model, drop column surface,
    drop column latency_ms, drop column cost_usd, drop column source_urls, drop column fan_out_queries, drop column reason`.execute(db);
  await sql`alter table prompts drop column locations, drop column engines, drop column samples, drop column cadence,
    drop column managed, drop column last_cycle_day, drop column removed_at, drop column updated_at`.execute(db);
}
