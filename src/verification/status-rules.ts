import type { CitationStatus } from '../runs/vocabulary.ts';
import type { Observation } from './check-url.ts';

/** What is known of a URL before a check: its status and the evidence that it ever existed. */
export interface UrlRecord {
  status: CitationStatus;
  /** Verified by a check before. */
  everVerified: boolean;
  /** Where it answered when last verified (after redirects). */
  verifiedUrl: string | null;
  /** Among the sources an engine retrieved. */
  retrieved: boolean;
  /** Failed checks in a row (5xx, TLS, connection, loops, timeouts) and when the first of them was. */
  failures: number;
  firstFailureAt: Date | null;
}

export interface Decision {
  status: CitationStatus;
  everVerified: boolean;
  verifiedUrl: string | null;
  failures: number;
  firstFailureAt: Date | null;
  /** When to check again. */
  nextCheckAt: Date;
  /** The observation in a few words, kept for a person. */
  note: string;
}

/** Failed checks, spread over at least this long, make a page broken. */
export const BROKEN_AFTER_FAILURES = 3;
export const BROKEN_SPAN_MS = 24 * 3_600_000;
/** A failed check is tried again after this long (so three span a day). */
export const RETRY_FAILED_MS = 12 * 3_600_000;
/** An inconclusive one (401, 403, 429, robots, DNS trouble) after this long. */
export const RETRY_INCONCLUSIVE_MS = 24 * 3_600_000;

const DAY_MS = 86_400_000;

/**
 * The status rules of operations.md section 7, as one function of what was known of a URL and what
 * a check saw:
 * - answered 2xx (within 5 redirects, not a soft 404): verified; but a page verified before that now
 *   redirects permanently somewhere else than where it was verified has moved: stale;
 * - gone (404, 410, a soft 404, a redirect of a deep page to the home page) or its host gone
 *   (NXDOMAIN): stale if it existed (verified before, or retrieved by an engine, or an import said it
 *   was verified or stale), else hallucinated;
 * - failed (5xx, TLS, connection, loops, timeouts): broken on the third failure in a row spanning at
 *   least 24 hours; until then the status stays (one transient failure is inconclusive);
 * - inconclusive (401, 403, 429, robots.txt, DNS trouble, a blocked address): the status stays.
 * Verified, stale, hallucinated and broken pages are checked again after `recheckDays`.
 */
export function decideStatus(url: UrlRecord, seen: Observation, now: Date, recheckDays: number): Decision {
  const existed = url.everVerified || url.retrieved || url.status === 'verified' || url.status === 'stale';
  const recheck = new Date(now.getTime() + recheckDays * DAY_MS);
  const settled = { failures: 0, firstFailureAt: null, nextCheckAt: recheck };
  switch (seen.kind) {
    case 'ok': {
      const moved = url.everVerified && seen.permanentRedirect && url.verifiedUrl !== null && url.verifiedUrl !== seen.finalUrl;
      if (moved) return { ...settled, status: 'stale', everVerified: true, verifiedUrl: url.verifiedUrl, note: `moved permanently to ${seen.finalUrl}` };
      return { ...settled, status: 'verified', everVerified: true, verifiedUrl: seen.finalUrl, note: `answered ${seen.status}${seen.finalUrl ? ` at ${seen.finalUrl}` : ''}` };
    }
    case 'gone':
      return { ...settled, status: existed ? 'stale' : 'hallucinated', everVerified: url.everVerified, verifiedUrl: url.verifiedUrl, note: `${seen.why.replaceAll('_', ' ')} (${seen.status})` };
    case 'no_host':
      return { ...settled, status: existed ? 'stale' : 'hallucinated', everVerified: url.everVerified, verifiedUrl: url.verifiedUrl, note: `no such host: ${seen.why}` };
    case 'failed': {
      const failures = url.failures + 1;
      const firstFailureAt = url.firstFailureAt ?? now;
      const broken = failures >= BROKEN_AFTER_FAILURES && now.getTime() - firstFailureAt.getTime() >= BROKEN_SPAN_MS;
      return {
        status: broken ? 'broken' : url.status,
        everVerified: url.everVerified,
        verifiedUrl: url.verifiedUrl,
        failures,
        firstFailureAt,
        nextCheckAt: broken ? recheck : new Date(now.getTime() + RETRY_FAILED_MS),
        note: `failed (${failures} in a row): ${seen.why}`,
      };
    }
    case 'inconclusive':
      return {
        status: url.status,
        everVerified: url.everVerified,
        verifiedUrl: url.verifiedUrl,
        failures: url.failures,
        firstFailureAt: url.firstFailureAt,
        nextCheckAt: new Date(now.getTime() + RETRY_INCONCLUSIVE_MS),
        note: `inconclusive: ${seen.why}${seen.status ? ` (${seen.status})` : ''}`,
      };
  }
}
