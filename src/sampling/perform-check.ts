import type { Outbound } from '../outbound/outbound.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import type { ClaimedCheck } from './claim-checks.ts';
import type { CheckEnd } from './finish-check.ts';
import { ProviderError, type EngineAdapter, type ProviderSettings } from './providers/provider.ts';
import { nextAttemptAt } from './retry-policy.ts';
import { scoreSentiment, type SentimentDeps } from './score-sentiment.ts';

export interface PerformDeps extends SentimentDeps {
  outbound: Outbound;
  providers: readonly ProviderSettings[];
  adapters: Readonly<Partial<Record<EngineKey, EngineAdapter>>>;
  now: () => Date;
}

/**
 * One attempt of a check: the question sent to its engine's provider, timed. The provider's
 * answer (or its saying there is none) ends the check as answered; a failure worth retrying puts
 * it back (retry-policy.ts) until the attempts run out, and any other failure ends it as failed.
 * An engine that lost its key since the check was queued is skipped.
 */
export async function performCheck(deps: PerformDeps, check: ClaimedCheck): Promise<CheckEnd> {
  const settings = deps.providers.find((p) => p.engine === check.engine);
  const adapter = deps.adapters[check.engine];
  if (!settings || settings.apiKey === undefined || !adapter) return { kind: 'skipped', reason: `${check.engine} is not configured` };
  const apiKey = settings.apiKey;
  const started = performance.now();
  const base = { provider: settings.provider, surface: settings.surface };
  try {
    const capture = await adapter.check({ prompt: check.prompt, location: check.location }, { outbound: deps.outbound, settings: { ...settings, apiKey } });
    const latencyMs = performance.now() - started;
    const sentiment = capture.outcome === 'ok' ? await scoreSentiment(deps, check, capture.answer) : undefined;
    return { kind: 'answered', answer: { ...base, latencyMs, capture, sentiment } };
  } catch (error) {
    const latencyMs = performance.now() - started;
    if (!(error instanceof ProviderError)) {
      return { kind: 'failed', answer: { ...base, latencyMs, model: settings.model, failure: `internal: ${(error as Error).message ?? String(error)}` } };
    }
    const reason = `${error.failure}: ${error.message}`;
    const at = nextAttemptAt(error, check.attempts, deps.now());
    if (at) return { kind: 'retry', runAfter: at, reason };
    return { kind: 'failed', answer: { ...base, latencyMs, model: settings.model, failure: reason } };
  }
}
