import { OutboundError, type Outbound } from '../outbound/outbound.ts';

/** A name that exists wherever DNS works (IANA reserves it; it resolves to public addresses). */
const CONTROL_URL = 'https://example.com/';

/**
 * Whether name resolution works at all, asked at most once a `ttlMs`: a resolver that answers "no
 * such host" for every name (no network, a broken resolver) cannot tell a hallucinated host from a
 * real one, so its "no such host" is inconclusive, never a verdict.
 */
export function dnsHealth(outbound: Outbound, ttlMs = 60_000, now: () => number = Date.now): () => Promise<boolean> {
  let known: { works: boolean; at: number } | undefined;
  return async () => {
    if (known && now() - known.at < ttlMs) return known.works;
    let works = true;
    try {
      await outbound.vet(CONTROL_URL);
    } catch (error) {
      works = !(error instanceof OutboundError && (error.failure === 'dns_nxdomain' || error.failure === 'dns_temporary'));
    }
    known = { works, at: now() };
    return works;
  };
}
