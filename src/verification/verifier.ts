import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Observation } from './check-url.ts';
import { claimUrls, type ClaimedUrl } from './claim-urls.ts';
import { recordVerdict } from './record-verdict.ts';
import { decideStatus } from './status-rules.ts';

export interface VerifierDeps {
  db: Kysely<DB>;
  /** Looks at one URL (check-url.ts, with its robots cache, per-host limits and guarded client). */
  check: (url: string) => Promise<Observation>;
  /** Whether name resolution works at all: a resolver that knows no name cannot say one does not exist. */
  dnsWorks: () => Promise<boolean>;
  now: () => Date;
  recheckDays: number;
  /** URLs checked at once by this process. */
  concurrency: number;
  onError: (error: unknown) => void;
}

export interface VerifyOutcome {
  url: ClaimedUrl;
  status: string;
}

/** A URL's claim outlives the longest check (robots, HEAD, GET, the soft-404 probe, each capped). */
const LEASE_MS = 5 * 60_000;

/**
 * One round of checks: claims up to `limit` due URLs (of a project, or any), looks at each (at most
 * `concurrency` at once), decides its status by the rules (status-rules.ts) and records the verdict
 * (record-verdict.ts). A "no such host" from a resolver that resolves nothing (no network) is not
 * believed: it is inconclusive. Returns what it decided, URL by URL.
 */
export async function verifyDue(deps: VerifierDeps, options: { limit: number; projectId?: string | undefined; only?: readonly string[] | undefined }): Promise<VerifyOutcome[]> {
  const claimed = await claimUrls(deps.db, { limit: options.limit, leaseMs: LEASE_MS, now: deps.now(), projectId: options.projectId, only: options.only });
  const out: VerifyOutcome[] = [];
  let next = 0;
  const work = async () => {
    while (next < claimed.length) {
      const url = claimed[next++]!;
      try {
        let seen = await deps.check(url.url);
        if (seen.kind === 'no_host' && !(await deps.dnsWorks())) seen = { kind: 'inconclusive', why: `DNS resolves no name now (${seen.why})` };
        const decision = decideStatus(url, seen, deps.now(), deps.recheckDays);
        const { recorded } = await recordVerdict(deps.db, url, decision, deps.now());
        if (recorded) out.push({ url, status: decision.status });
      } catch (error) {
        deps.onError(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency, claimed.length) }, work));
  return out;
}
