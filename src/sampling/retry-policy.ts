import type { ProviderError } from './providers/provider.ts';

/** Attempts of one check before it is recorded as failed. */
export const MAX_ATTEMPTS = 4;
/** The longest wait between attempts the service chooses itself (a provider's retry-after may ask for more, up to an hour). */
export const MAX_BACKOFF_MS = 120_000;

/**
 * When to try a failed check again, or undefined when not: failures that trying again cannot fix
 * (auth, quota, a bad request, a malformed reply, a refusal) and the last attempt are final. A
 * provider's retry-after is honoured (with up to 10% added, so workers do not return together);
 * otherwise 5 s, 10 s, 20 s ... (capped), each with +-20% jitter.
 */
export function nextAttemptAt(error: ProviderError, attempts: number, now: Date, random: () => number = Math.random): Date | undefined {
  if (!error.retryable || attempts >= MAX_ATTEMPTS) return undefined;
  const wait =
    error.retryAfterMs !== undefined
      ? error.retryAfterMs * (1 + 0.1 * random())
      : Math.min(MAX_BACKOFF_MS, 5_000 * 2 ** Math.max(0, attempts - 1)) * (0.8 + 0.4 * random());
  return new Date(now.getTime() + Math.round(wait));
}
