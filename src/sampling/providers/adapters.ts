import type { EngineKey } from '../../runs/vocabulary.ts';
import type { EngineAdapter } from './provider.ts';
import { anthropicAdapter } from './anthropic.ts';
import { geminiAdapter } from './gemini.ts';
import { openaiAdapter } from './openai.ts';
import { perplexityAdapter } from './perplexity.ts';
import { copilotAdapter, googleAiModeAdapter, googleAiOverviewsAdapter } from './serpapi.ts';

/** The adapter that asks each engine (providers-config.ts says which provider and where). */
export const ENGINE_ADAPTERS: Readonly<Partial<Record<EngineKey, EngineAdapter>>> = {
  chatgpt: openaiAdapter,
  perplexity: perplexityAdapter,
  gemini: geminiAdapter,
  claude: anthropicAdapter,
  google_ai_overviews: googleAiOverviewsAdapter,
  google_ai_mode: googleAiModeAdapter,
  copilot: copilotAdapter,
};
