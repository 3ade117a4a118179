import { sql, type Kysely } from 'kysely';

// Frozen in time: this file never imports application code.
//
// Citation verification and sentiment (operations.md section 7). Each cited URL of a project keeps what the
// checker knows of it beside its status:
// - `status_source`: `import` (the status an import gave, which the checker leaves alone) or `check`
//   (the checker's own conclusion, rechecked on schedule). A URL still `unchecked` is the checker's
//   to check, whoever cited it.
// - the evidence the status rules weigh: verified by a check before (`ever_verified`, and the final
//   URL it answered at, `verified_url`), retrieved by an engine (`retrieved`), the failed checks in a
//   row and when they began;
// - the schedule and the claim: due from `verify_after`, held by one worker at a time
//   (`verify_claim`, `verify_claimed_until`), as the sampling queue's checks are.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table cited_urls
    add column status_source text not null default 'import' check (status_source in ('import', 'check')),
    add column retrieved boolean not null default false,
    add column ever_verified boolean not null default false,
    add column verified_url text,
    add column check_failures smallint not null default 0,
    add column first_failure_at timestamptz,
    add column checked_at timestamptz,
    add column check_note text,
    add column verify_after timestamptz not null default clock_timestamp(),
    add column verify_claim uuid,
    add column verify_claimed_until timestamptz`.execute(db);
  // Sentiment (section 7): the scorer of a run's mention scores, kept with them.
  await sql`alter table runs add column sentiment_method text`.execute(db);
  await sql`create index cited_urls_verify_idx on cited_urls (verify_after) where status = 'unchecked' or status_source = 'check'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index cited_urls_verify_idx`.execute(db);
  await sql`alter table runs drop column sentiment_method`.execute(db);
  await sql`alter table cited_urls drop column status_source, drop column retrieved, drop column ever_verified, drop column verified_url,
    drop column check_failures, drop column first_failure_at, drop column checked_at, drop column check_note, drop column verify_after,
    drop column verify_claim, drop column verify_claimed_until`.execute(db);
}
