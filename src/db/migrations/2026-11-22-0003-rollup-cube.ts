import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.
//
// Rollups become cubes: every run is added to 16 rows per rollup, one per subset of the four
// filter dimensions (engine, topic, location, branded) it is grouped by. `grouping` is the bit mask
// of the dimensions summed over (PostgreSQL's GROUPING(engine_id, topic_id, location, branded):
// 8 engine, 4 topic, 2 location, 1 branded); a summed-over dimension holds a neutral value (nil
// UUID, '', false). A read with any combination of filters then sums exactly days x subjects rows,
// whatever the number of runs or of distinct prompts, topics and locations behind them.
// The existing rollups are rebuilt from the runs.

const NIL = '00000000-0000-0000-0000-000000000000';
const DIMS = ['engine_id', 'topic_id', 'location', 'branded'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['citation_rollup', 'subject_rollup', 'run_rollup']) await db.schema.dropTable(table).execute();

  const cubeDims = (t: any) =>
    t
      .addColumn('project_id', 'uuid', (c: any) => c.notNull())
      .addColumn('grouping', 'smallint', (c: any) => c.notNull())
      .addColumn('engine_id', 'uuid', (c: any) => c.notNull())
      .addColumn('topic_id', 'uuid', (c: any) => c.notNull())
      .addColumn('location', 'text', (c: any) => c.notNull())
      .addColumn('branded', 'boolean', (c: any) => c.notNull())
      .addColumn('day', 'date', (c: any) => c.notNull());
  const key = ['project_id', 'grouping', ...DIMS, 'day'];

  await cubeDims(db.schema.createTable('run_rollup'))
    .addColumn('ok_runs', 'integer', (c: any) => c.notNull())
    .addColumn('failed_runs', 'integer', (c: any) => c.notNull())
    .addColumn('mentions', 'bigint', (c: any) => c.notNull())
    .addPrimaryKeyConstraint('run_rollup_pk', key)
    .execute();

  await cubeDims(db.schema.createTable('subject_rollup'))
    .addColumn('subject_id', 'uuid', (c: any) => c.notNull())
    .addColumn('mention_runs', 'integer', (c: any) => c.notNull())
    .addColumn('mentions', 'bigint', (c: any) => c.notNull())
    .addColumn('position_sum', 'bigint', (c: any) => c.notNull())
    .addColumn('position_count', 'integer', (c: any) => c.notNull())
    .addColumn('sentiment_sum', 'double precision', (c: any) => c.notNull())
    .addColumn('sentiment_count', 'integer', (c: any) => c.notNull())
    .addPrimaryKeyConstraint('subject_rollup_pk', [...key, 'subject_id'])
    .execute();

  await cubeDims(db.schema.createTable('citation_rollup'))
    .addColumn('url_id', 'uuid', (c: any) => c.notNull())
    .addColumn('citations', 'integer', (c: any) => c.notNull())
    .addPrimaryKeyConstraint('citation_rollup_pk', [...key, 'url_id'])
    .execute();
  // A subject's citations: its few URLs first, then their days.
  await db.schema
    .createIndex('citation_rollup_url_idx')
    .on('citation_rollup')
    .columns(['project_id', 'url_id', 'grouping', ...DIMS, 'day'])
    .execute();

  // Rebuild from the runs, with the same cube the import maintains.
  const cubeKey = sql`grouping(r.engine_id, r.topic_key, r.location, r.branded)::smallint,
      coalesce(r.engine_id, ${NIL}::uuid), coalesce(r.topic_key, ${NIL}::uuid), coalesce(r.location, ''), coalesce(r.branded, false), r.day`;
  const cube = sql`cube(r.engine_id, r.topic_key, r.location, r.branded)`;
  const runs = sql`(select runs.*, coalesce(runs.topic_id, ${NIL}::uuid) as topic_key from runs)`;

  await sql`insert into run_rollup (project_id, grouping, engine_id, topic_id, location, branded, day, ok_runs, failed_runs, mentions)
    select r.project_id, ${cubeKey},
      count(*) filter (where r.status = 'ok'), count(*) filter (where r.status = 'failed'),
      coalesce(sum(m.total) filter (where r.status = 'ok'), 0)
    from ${runs} r
    left join (select run_id, sum(count) as total from run_mentions group by run_id) m on m.run_id = r.id
    group by r.project_id, r.day, ${cube}`.execute(db);

  await sql`insert into subject_rollup (project_id, grouping, engine_id, topic_id, location, branded, day, subject_id,
      mention_runs, mentions, position_sum, position_count, sentiment_sum, sentiment_count)
    select r.project_id, ${cubeKey}, m.subject_id,
      count(*), sum(m.count), coalesce(sum(m.position), 0), count(m.position), coalesce(sum(m.sentiment), 0), count(m.sentiment)
    from ${runs} r join run_mentions m on m.run_id = r.id
    where r.status = 'ok'
    group by r.project_id, r.day, m.subject_id, ${cube}`.execute(db);

  await sql`insert into citation_rollup (project_id, grouping, engine_id, topic_id, location, branded, day, url_id, citations)
    select r.project_id, ${cubeKey}, c.url_id, count(*)
    from ${runs} r join run_citations c on c.run_id = r.id
    where r.status = 'ok'
    group by r.project_id, r.day, c.url_id, ${cube}`.execute(db);
}

export async function down(): Promise<void> {
  throw new Error('2026-11-22-0003-rollup-cube cannot be undone: restore a backup instead');
}
