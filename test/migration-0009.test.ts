import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { MIGRATION_NAMES, migrateTo } from '../src/db/migrate.ts';
import { openPrivateTestDatabase } from './helpers.ts';

// Data stored before migration 0009: URL variants of one page as separate URLs (one run citing two
// of them), a run id used in two projects (impossible then: ids were global) and change events
// already delivered. After it: one URL per page, keeping the first spelling for display; the
// citations moved; run ids per project; rollups rebuilt; old events not sent to webhooks again.
describe('migration 0009 on data stored before it', () => {
  test('merges URL variants, scopes run ids to projects, rebuilds rollups, leaves old events published', async () => {
    const database = await openPrivateTestDatabase({ blank: true });
    const db = database.db as any;
    try {
      await migrateTo(db, MIGRATION_NAMES[MIGRATION_NAMES.indexOf('2026-11-23-0009-trust') - 1]!);
      const [w, p] = [randomUUID(), randomUUID()];
      const engine = (await sql<{ id: string }>`select id from engines where key = 'chatgpt'`.execute(db)).rows[0]!.id;
      await sql`insert into workspaces (id, name, plan) values (${w}, 'w', 'growth')`.execute(db);
      await sql`insert into projects (id, workspace_id, name, domain) values (${p}, ${w}, 'Acme', 'acme.com')`.execute(db);
      const prompt = randomUUID();
      await sql`insert into prompts (id, workspace_id, project_id, text, branded) values (${prompt}, ${w}, ${p}, 'x', false)`.execute(db);
      const runs = [randomUUID(), randomUUID()];
      for (const [i, id] of runs.entries()) {
        await sql`insert into runs (id, workspace_id, project_id, engine_id, prompt_id, location, branded, ran_at, day, status)
          values (${id}, ${w}, ${p}, ${engine}, ${prompt}, '', false, ${`2026-11-2${i}T09:00:00Z`}, ${`2026-11-2${i}`}, 'ok')`.execute(db);
      }
      const urls = [
        [randomUUID(), 'https://acme.com/pricing?utm_source=chatgpt.com', 'verified', '2026-11-20T09:00:00Z'],
        [randomUUID(), 'https://acme.com/pricing/', 'stale', '2026-11-21T09:00:00Z'],
        [randomUUID(), 'https://acme.com/docs', 'unchecked', '2026-11-20T09:00:00Z'],
      ] as const;
      for (const [id, url, status, at] of urls) {
        await sql`insert into cited_urls (id, workspace_id, project_id, url, host, domain, article_type, status, status_at, subject_type, subject_id)
          values (${id}, ${w}, ${p}, ${url}, 'acme.com', 'acme.com', 'other', ${status}, ${at}, 'brand', ${p})`.execute(db);
      }
      // Run 0 cites both variants of the pricing page and the docs; run 1 the second variant.
      for (const [run, ordinal, url] of [[runs[0], 0, urls[0][0]], [runs[0], 1, urls[1][0]], [runs[0], 2, urls[2][0]], [runs[1], 0, urls[1][0]]] as const) {
        await sql`insert into run_citations (run_id, project_id, ordinal, url_id, status, article_type) values (${run}, ${p}, ${ordinal}, ${url}, 'unchecked', 'other')`.execute(db);
      }
      const event = randomUUID();
      await sql`insert into change_events (id, workspace_id, project_id, key, day, kind, subject_type, subject_id, summary, detail)
        values (${event}, ${w}, ${p}, 'k', '2026-11-20', 'visibility_gained', 'brand', ${p}, 's', '{}')`.execute(db);

      await migrateTo(db, '2026-11-23-0009-trust');

      const stored = (await sql<{ url: string; display_url: string; status: string }>`select url, display_url, status from cited_urls where project_id = ${p} order by url`.execute(db)).rows;
      assert.deepEqual(stored, [
        { url: 'https://acme.com/docs', display_url: 'https://acme.com/docs', status: 'unchecked' },
        { url: 'https://acme.com/pricing', display_url: 'https://acme.com/pricing?utm_source=chatgpt.com', status: 'stale' },
      ]);
      const cites = (await sql<{ n: number }>`select count(*)::int as n from run_citations where project_id = ${p}`.execute(db)).rows[0]!.n;
      assert.equal(cites, 3, 'the run that cited two variants cites the page once');
      const rollup = (await sql<{ total: number }>`select sum(citations)::int as total from citation_rollup where project_id = ${p} and grouping = 15`.execute(db)).rows[0]!.total;
      assert.equal(rollup, 3);
      const subject = (await sql<{ tracked: number; citations: number; citing: number }>`select sum(tracked_runs)::int as tracked, sum(citations)::int as citations, sum(citing_runs)::int as citing
        from subject_rollup where project_id = ${p} and grouping = 15 and subject_id = ${p}`.execute(db)).rows[0]!;
      assert.deepEqual(subject, { tracked: 2, citations: 3, citing: 2 });
      const published = (await sql<{ published_at: Date | null }>`select published_at from change_events where id = ${event}`.execute(db)).rows[0]!;
      assert.ok(published.published_at, 'events from before were delivered already: not again');
      // Run ids are per project now.
      const [w2, p2] = [randomUUID(), randomUUID()];
      await sql`insert into workspaces (id, name, plan) values (${w2}, 'w2', 'growth')`.execute(db);
      await sql`insert into projects (id, workspace_id, name, domain) values (${p2}, ${w2}, 'B', 'b.com')`.execute(db);
      const prompt2 = randomUUID();
      await sql`insert into prompts (id, workspace_id, project_id, text, branded) values (${prompt2}, ${w2}, ${p2}, 'x', false)`.execute(db);
      await sql`insert into runs (id, workspace_id, project_id, engine_id, prompt_id, location, branded, ran_at, day, status)
        values (${runs[0]}, ${w2}, ${p2}, ${engine}, ${prompt2}, '', false, '2026-11-20T09:00:00Z', '2026-11-20', 'ok')`.execute(db);
    } finally {
      await database.close();
    }
  });
});
