import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { plainArray, textArray } from '../db/array-literal.ts';
import { registrableDomain } from './classify-url.ts';
import type { ResolvedCitation, ResolvedRun } from './resolve-run.ts';
import type { CitationStatus } from './vocabulary.ts';
import type { PageState, WriteContext } from './write-context.ts';

/** A page a batch cites: its state before and after the batch, and what the batch writes of it. */
export interface PagePlan {
  url: string;
  id: string;
  /** undefined: the project does not hold the page yet. */
  before: PageState | undefined;
  after: PageState;
  /** The first citation of it in the batch (display form, host, type, owner). */
  first: ResolvedCitation;
}

/**
 * The pages the batch's completed runs cite, one per URL, and their state after it: a page's
 * status is its own, the latest observation by run time wins whatever the order of import (a tie
 * goes to the later one), exactly as the upsert below decides it. `before` gives the state known
 * before the batch; `mint` an id for a page not known.
 */
export function planPages(
  runs: readonly ResolvedRun[],
  before: (url: string) => PageState | undefined,
  mint: (url: string) => string,
): Map<string, PagePlan> {
  const latest = new Map<string, { first: ResolvedCitation; status: CitationStatus; atUs: number }>();
  for (const run of runs) {
    const atUs = run.record.ranAt.getTime() * 1000;
    for (const citation of run.citations) {
      const seen = latest.get(citation.url);
      if (!seen) latest.set(citation.url, { first: citation, status: citation.status, atUs });
      else if (atUs >= seen.atUs) {
        seen.status = citation.status;
        seen.atUs = atUs;
      }
    }
  }
  const plans = new Map<string, PagePlan>();
  for (const [url, { first, status, atUs }] of latest) {
    const known = before(url);
    const after: PageState = known
      ? atUs >= known.statusAtUs
        ? { ...known, status, statusAtUs: atUs }
        : known
      : { id: mint(url), subjectId: first.owner?.id ?? null, status, statusAtUs: atUs };
    plans.set(url, { url, id: after.id, before: known, after, first });
  }
  return plans;
}

/**
 * The upsert-cited-urls step: new pages inserted, pages the batch observed later than their
 * status written (the same rule as planPages, in SQL). Returns false if the pages were not, before
 * or after, in the states planned (the context was stale): the caller must start the batch again.
 */
export async function upsertCitedUrls(tx: Transaction<DB>, context: WriteContext, plans: ReadonlyMap<string, PagePlan>): Promise<boolean> {
  const rows = [...plans.values()].filter((p) => p.after !== p.before).sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  for (let i = 0; i < rows.length; i += 5_000) {
    const part = rows.slice(i, i + 5_000);
    const text = (value: (p: PagePlan) => string | null) => sql`${textArray(part.map(value))}::text[]`;
    const urls = text((p) => p.url);
    // Both states come back: before (the CTE reads the table as it was when the statement began)
    // and after; each must be what the plan assumed.
    const returned = await sql<{ id: string; url: string; status: string; status_us: string; subject_id: string | null; before_status: string | null; before_us: string | null; before_subject: string | null }>`
      with before as (
        select url, status, (extract(epoch from status_at) * 1000000)::bigint::text as status_us, subject_id
        from cited_urls where project_id = ${context.projectId} and url = any(${urls})
      ), upserted as (
        insert into cited_urls (id, workspace_id, project_id, url, display_url, host, domain, article_type, status, status_at, subject_type, subject_id)
        select id, ${context.workspaceId}::uuid, ${context.projectId}::uuid, url, display_url, host, domain, article_type, status, status_at, subject_type, subject_id
        from unnest(${sql.join([
          sql`${plainArray(part.map((p) => p.id))}::uuid[]`,
          urls,
          text((p) => p.first.rawUrl),
          text((p) => p.first.host),
          text((p) => registrableDomain(p.first.host)),
          text((p) => p.first.articleType),
          text((p) => p.after.status),
          sql`${plainArray(part.map((p) => new Date(p.after.statusAtUs / 1000).toISOString()))}::timestamptz[]`,
          text((p) => p.first.owner?.type ?? null),
          sql`${plainArray(part.map((p) => p.first.owner?.id ?? null))}::uuid[]`,
        ])}) as t(id, url, display_url, host, domain, article_type, status, status_at, subject_type, subject_id)
        on conflict (project_id, url) do update set
          status = case when excluded.status_at >= cited_urls.status_at then excluded.status else cited_urls.status end,
          status_at = greatest(excluded.status_at, cited_urls.status_at)
        returning id, url, status, (extract(epoch from status_at) * 1000000)::bigint::text as status_us, subject_id
      )
      select u.*, b.status as before_status, b.status_us as before_us, b.subject_id as before_subject
      from upserted u left join before b on b.url = u.url`.execute(tx);
    for (const row of returned.rows) {
      const plan = plans.get(row.url);
      if (!plan || !sameState(plan.after, row.id, row.status, row.status_us, row.subject_id)) return false;
      if (plan.before ? !sameState(plan.before, row.id, row.before_status, row.before_us, row.before_subject) : row.before_status !== null) return false;
    }
  }
  return true;
}

const sameState = (state: PageState, id: string, status: string | null, statusUs: string | null, subjectId: string | null) =>
  state.id === id && state.status === status && state.statusAtUs === Number(statusUs) && state.subjectId === subjectId;

/** The pages of these URLs the project holds, with their states (all of them, read under the project lock). */
export async function findPages(tx: Transaction<DB>, projectId: string, urls: readonly string[]): Promise<Map<string, PageState>> {
  const found = new Map<string, PageState>();
  for (let i = 0; i < urls.length; i += 5_000) {
    const rows = await sql<{ id: string; url: string; status: string; status_us: string; subject_id: string | null }>`
      select id, url, status, (extract(epoch from status_at) * 1000000)::bigint::text as status_us, subject_id
      from cited_urls where project_id = ${projectId} and url = any(${textArray(urls.slice(i, i + 5_000))}::text[])`.execute(tx);
    for (const row of rows.rows) found.set(row.url, { id: row.id, subjectId: row.subject_id, status: row.status as CitationStatus, statusAtUs: Number(row.status_us) });
  }
  return found;
}
