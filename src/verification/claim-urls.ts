import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { CitationStatus } from '../runs/vocabulary.ts';
import type { UrlRecord } from './status-rules.ts';

/** A cited URL a worker holds for checking: only the holder of `claim` may record its verdict. */
export interface ClaimedUrl extends UrlRecord {
  projectId: string;
  id: string;
  url: string;
  claim: string;
}

/**
 * Claims URLs due for a check: those still unchecked (whoever cited them) and those whose status
 * the checker gave (an import's status is the importer's, left alone), whose time has come and that
 * no live worker holds. Among the oldest due, hosts take turns: a round holds as many hosts as it
 * can, since each host is checked at most two requests at a time (a round of one host's pages
 * waits on that limit). Two workers may pick the same candidates: the update checks the claim
 * again, so one of them gets each URL.
 */
export async function claimUrls(db: Kysely<DB>, options: { limit: number; leaseMs: number; now: Date; projectId?: string | undefined; only?: readonly string[] | undefined }): Promise<ClaimedUrl[]> {
  if (options.limit <= 0 || options.only?.length === 0) return [];
  const claim = randomUUID();
  const until = new Date(options.now.getTime() + options.leaseMs);
  const project = options.projectId === undefined ? sql`` : sql`and project_id = ${options.projectId}::uuid`;
  const only = options.only === undefined ? sql`` : sql`and id = any(${`{${options.only.join(',')}}`}::uuid[])`;
  const rows = await sql<{
    project_id: string;
    id: string;
    url: string;
    status: CitationStatus;
    ever_verified: boolean;
    verified_url: string | null;
    retrieved: boolean;
    check_failures: number;
    first_failure_at: Date | null;
  }>`
    update cited_urls c set verify_claim = ${claim}::uuid, verify_claimed_until = ${until}
    from (
      select project_id, id from (
        select project_id, id, verify_after, row_number() over (partition by host order by verify_after) as turn
        from (
          select project_id, id, host, verify_after from cited_urls
          where (status = 'unchecked' or status_source = 'check') and verify_after <= ${options.now}
            and (verify_claimed_until is null or verify_claimed_until <= ${options.now}) ${project} ${only}
          order by verify_after limit ${options.limit * 20}
        ) oldest
      ) spread
      order by turn, verify_after limit ${options.limit}
    ) due
    where c.project_id = due.project_id and c.id = due.id
      and (c.verify_claimed_until is null or c.verify_claimed_until <= ${options.now})
    returning c.project_id, c.id, c.url, c.status, c.ever_verified, c.verified_url, c.retrieved, c.check_failures, c.first_failure_at`.execute(db);
  return rows.rows.map((r) => ({
    projectId: r.project_id,
    id: r.id,
    url: r.url,
    claim,
    status: r.status,
    everVerified: r.ever_verified,
    verifiedUrl: r.verified_url,
    retrieved: r.retrieved,
    failures: r.check_failures,
    firstFailureAt: r.first_failure_at,
  }));
}
