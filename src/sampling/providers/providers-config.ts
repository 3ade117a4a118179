import { resolveKey } from '../../outbound/resolve-map.ts';
import { ENGINE_KEYS, type EngineKey } from '../../runs/vocabulary.ts';
import type { ProviderName, ProviderSettings, Surface } from './provider.ts';

/**
 * Which provider answers for each engine, configured by the environment variables the
 * providers' own SDKs use (operations.md section 6): an engine whose key is unset is not
 * configured, and its checks are skipped. Models and limits are ours to choose and configurable
 * (docs/sampling.md).
 */
interface EngineRoute {
  provider: ProviderName;
  surface: Surface;
  keyVar: string;
  baseVar: string;
  defaultBase: string;
  /** SIGHTLINE_<ENGINE>_MODEL overrides; for SerpApi the "model" is its search engine, fixed. */
  modelVar: string | undefined;
  defaultModel: string;
}

export const ENGINE_ROUTES: Record<EngineKey, EngineRoute> = {
  chatgpt: { provider: 'openai', surface: 'api', keyVar: 'OPENAI_API_KEY', baseVar: 'OPENAI_BASE_URL', defaultBase: 'https://api.openai.com/v1', modelVar: 'SIGHTLINE_CHATGPT_MODEL', defaultModel: 'gpt-5-mini' },
  perplexity: { provider: 'perplexity', surface: 'api', keyVar: 'PERPLEXITY_API_KEY', baseVar: 'PERPLEXITY_BASE_URL', defaultBase: 'https://api.perplexity.ai', modelVar: 'SIGHTLINE_PERPLEXITY_MODEL', defaultModel: 'sonar' },
  gemini: { provider: 'gemini', surface: 'api', keyVar: 'GEMINI_API_KEY', baseVar: 'GEMINI_BASE_URL', defaultBase: 'https://generativelanguage.googleapis.com', modelVar: 'SIGHTLINE_GEMINI_MODEL', defaultModel: 'gemini-2.5-flash' },
  claude: { provider: 'anthropic', surface: 'api', keyVar: 'ANTHROPIC_API_KEY', baseVar: 'ANTHROPIC_BASE_URL', defaultBase: 'https://api.anthropic.com', modelVar: 'SIGHTLINE_CLAUDE_MODEL', defaultModel: 'claude-sonnet-4-5' },
  google_ai_overviews: { provider: 'serpapi', surface: 'serp', keyVar: 'SERPAPI_API_KEY', baseVar: 'SERPAPI_BASE_URL', defaultBase: 'https://serpapi.com', modelVar: undefined, defaultModel: 'google' },
  google_ai_mode: { provider: 'serpapi', surface: 'serp', keyVar: 'SERPAPI_API_KEY', baseVar: 'SERPAPI_BASE_URL', defaultBase: 'https://serpapi.com', modelVar: undefined, defaultModel: 'google_ai_mode' },
  copilot: { provider: 'serpapi', surface: 'serp', keyVar: 'SERPAPI_API_KEY', baseVar: 'SERPAPI_BASE_URL', defaultBase: 'https://serpapi.com', modelVar: undefined, defaultModel: 'bing_copilot' },
};

export class ProvidersConfigError extends Error {}

export interface SamplingConfig {
  /** One entry per engine, in the engines' order. */
  providers: ProviderSettings[];
  /** Checks in flight per provider, across every instance (SIGHTLINE_PROVIDER_CONCURRENCY). */
  providerConcurrency: number;
  /** Checks in flight in one process (SIGHTLINE_SAMPLER_CONCURRENCY). */
  instanceConcurrency: number;
  /** Whether `serve` runs the scheduler and the workers (SIGHTLINE_SAMPLING). */
  enabled: boolean;
  /**
   * How sampled answers' mentions are scored (SIGHTLINE_SENTIMENT): `lexicon` (offline, the default)
   * or `llm` (OpenAI, SIGHTLINE_SENTIMENT_MODEL, billed as `sentiment_score`; only with OPENAI_API_KEY,
   * else the lexicon).
   */
  sentiment: { scorer: 'lexicon' | 'llm'; model: string };
}

export function loadSamplingConfig(env: NodeJS.ProcessEnv): SamplingConfig {
  const timeoutMs = count(env, 'SIGHTLINE_PROVIDER_TIMEOUT_MS', 60_000, 1_000, 600_000);
  const providers = ENGINE_KEYS.map((engine): ProviderSettings => {
    const route = ENGINE_ROUTES[engine];
    return {
      engine,
      provider: route.provider,
      surface: route.surface,
      apiKey: nonEmpty(env[route.keyVar]),
      baseUrl: baseUrl(route.baseVar, nonEmpty(env[route.baseVar]) ?? route.defaultBase),
      model: (route.modelVar ? nonEmpty(env[route.modelVar]) : undefined) ?? route.defaultModel,
      timeoutMs,
    };
  });
  const flag = nonEmpty(env.SIGHTLINE_SAMPLING);
  if (flag !== undefined && !['0', '1', 'true', 'false'].includes(flag)) throw new ProvidersConfigError(`SIGHTLINE_SAMPLING must be 0 or 1, got "${flag}"`);
  const scorer = nonEmpty(env.SIGHTLINE_SENTIMENT) ?? 'lexicon';
  if (scorer !== 'lexicon' && scorer !== 'llm') throw new ProvidersConfigError(`SIGHTLINE_SENTIMENT must be lexicon or llm, got "${scorer}"`);
  const openaiKey = providers.find((p) => p.engine === 'chatgpt')?.apiKey;
  return {
    sentiment: { scorer: scorer === 'llm' && openaiKey !== undefined ? 'llm' : 'lexicon', model: nonEmpty(env.SIGHTLINE_SENTIMENT_MODEL) ?? 'gpt-5-mini' },
    providers,
    providerConcurrency: count(env, 'SIGHTLINE_PROVIDER_CONCURRENCY', 8, 1, 1_000),
    instanceConcurrency: count(env, 'SIGHTLINE_SAMPLER_CONCURRENCY', 32, 1, 10_000),
    enabled: flag === undefined || flag === '1' || flag === 'true',
  };
}

/** The engines whose provider has a key. */
export function configuredEngines(providers: readonly ProviderSettings[]): EngineKey[] {
  return providers.filter((p) => p.apiKey !== undefined).map((p) => p.engine);
}

/** The origins (host:port) of the configured base URLs: the operator chose them, so they may be private (an internal gateway, a local fake). */
export function providerOrigins(providers: readonly ProviderSettings[]): Set<string> {
  const origins = new Set<string>();
  for (const p of providers) {
    const url = new URL(p.baseUrl);
    origins.add(resolveKey(url.hostname.replace(/^\[|\]$/g, ''), Number(url.port) || (url.protocol === 'https:' ? 443 : 80)));
  }
  return origins;
}

function baseUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProvidersConfigError(`${name} must be an absolute http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ProvidersConfigError(`${name} must be an absolute http(s) URL, got "${value}"`);
  return url.href.replace(/\/+$/, '');
}

function count(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const value = nonEmpty(env[name]);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new ProvidersConfigError(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
