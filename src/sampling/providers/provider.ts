import type { Outbound } from '../../outbound/outbound.ts';
import type { EngineKey } from '../../runs/vocabulary.ts';

/**
 * What every engine adapter speaks (operations.md section 6, providers.md section 1). An adapter
 * sends one documented request to its provider and turns the reply into a Capture, or throws a
 * ProviderError saying what went wrong and whether trying again could help. Retries, backoff,
 * credits and recording are the queue's (src/sampling), never the adapter's.
 */

export type ProviderName = 'openai' | 'perplexity' | 'gemini' | 'anthropic' | 'serpapi';
export type Surface = 'api' | 'serp';

/** One engine's provider as the operator configured it (providers-config.ts). */
export interface ProviderSettings {
  engine: EngineKey;
  provider: ProviderName;
  surface: Surface;
  /** Undefined: not configured (its checks are skipped, never charged). */
  apiKey: string | undefined;
  /** Without a trailing slash, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  /** The whole exchange with the provider, per attempt. */
  timeoutMs: number;
}

/** One check's question. */
export interface CheckQuery {
  prompt: string;
  /** '' for none: the provider's default. Otherwise as configured on the prompt (e.g. `US`, `GB`, `Berlin, Germany`). */
  location: string;
}

export interface CapturedAd {
  advertiser: string;
  url: string | undefined;
}

/** A reply the provider gave: an answer, or the surface showing none. */
export type Capture =
  | {
      outcome: 'ok';
      answer: string;
      /** The links the answer shows, in order, each once, as given (after resolving provider redirects). */
      citations: string[];
      /** Pages the engine retrieved, where the provider reports them (cited or not), in order, each once. */
      sources: string[];
      /** Searches the engine fanned out to, where reported. */
      fanOutQueries: string[];
      ads: CapturedAd[];
      /** The model the provider says answered (else the one asked for). */
      model: string;
      /** The provider's reported cost in USD, where it reports one; null otherwise. */
      costUsd: number | null;
    }
  | {
      outcome: 'no_answer';
      /** Why, for the record (e.g. "no AI Overview for this query"). */
      reason: string;
      model: string;
      costUsd: number | null;
    };

export type ProviderFailure =
  /** 429 that is a rate limit: try again later (after retryAfterMs where given). */
  | 'rate_limited'
  /** 5xx, 529, overloaded: try again. */
  | 'server_error'
  | 'timeout'
  /** The connection failed (refused, reset, DNS): try again. */
  | 'network'
  /** 401, 403, a key the provider refuses: not retried, the operator must act. */
  | 'auth'
  /** Out of money or quota at the provider (OpenAI insufficient_quota, Anthropic spend limit, 402): not retried. */
  | 'quota'
  /** 400, 404, an unknown model: not retried. */
  | 'bad_request'
  /** A 2xx whose body is not what the provider documents: not retried. */
  | 'malformed'
  /** The engine refused or returned nothing (empty text, safety stop): not retried. */
  | 'refused';

const RETRYABLE: ReadonlySet<ProviderFailure> = new Set(['rate_limited', 'server_error', 'timeout', 'network']);

export class ProviderError extends Error {
  readonly failure: ProviderFailure;
  readonly retryable: boolean;
  /** The wait the provider asked for (retry-after, retry-after-ms), if it asked. */
  readonly retryAfterMs: number | undefined;
  /** The HTTP status, when there was one. */
  readonly status: number | undefined;
  constructor(failure: ProviderFailure, message: string, options: { retryAfterMs?: number | undefined; status?: number | undefined } = {}) {
    super(message);
    this.name = 'ProviderError';
    this.failure = failure;
    this.retryable = RETRYABLE.has(failure);
    this.retryAfterMs = options.retryAfterMs;
    this.status = options.status;
  }
}

/** What an adapter needs to make its call: the guarded client and its settings. */
export interface AdapterContext {
  outbound: Outbound;
  settings: ProviderSettings & { apiKey: string };
}

export interface EngineAdapter {
  provider: ProviderName;
  surface: Surface;
  check(query: CheckQuery, context: AdapterContext): Promise<Capture>;
}
