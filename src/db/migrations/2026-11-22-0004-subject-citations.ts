import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.
//
// A subject's citations (of URLs under its domain, hallucinated ones excluded) are kept in its
// rollup rows, so a timeseries or ranking reads no citation rows at all. Each cited URL belongs to
// at most one subject: the one with the most specific domain its host falls under.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subject_rollup').addColumn('citations', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.dropIndex('citation_rollup_url_idx').execute();

  await sql`update cited_urls u set subject_type = s.type, subject_id = s.id
    from (
      select distinct on (c.id) c.id as url_id, s.type, s.id
      from cited_urls c
      join (
        select id, 'brand' as type, domain, id as project_id from projects
        union all
        select id, 'competitor' as type, domain, project_id from competitors
      ) s on s.project_id = c.project_id and (c.host = s.domain or c.host like '%.' || s.domain)
      order by c.id, length(s.domain) desc
    ) s
    where u.id = s.url_id`.execute(db);

  await sql`insert into subject_rollup (project_id, grouping, engine_id, topic_id, location, branded, day, subject_id,
      mention_runs, mentions, position_sum, position_count, sentiment_sum, sentiment_count, citations)
    select c.project_id, c.grouping, c.engine_id, c.topic_id, c.location, c.branded, c.day, u.subject_id,
      0, 0, 0, 0, 0, 0, sum(c.citations)
    from citation_rollup c join cited_urls u on u.id = c.url_id
    where u.subject_id is not null and u.status <> 'hallucinated'
    group by c.project_id, c.grouping, c.engine_id, c.topic_id, c.location, c.branded, c.day, u.subject_id
    on conflict (project_id, grouping, engine_id, topic_id, location, branded, day, subject_id)
    do update set citations = excluded.citations`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('subject_rollup').dropColumn('citations').execute();
}
