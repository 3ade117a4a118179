/**
 * The price table, as data. Credits are the unit of work; `usdPerCredit` converts them to money
 * for the daily spend ceiling. One engine check is one prompt answered once by one engine.
 */
export const USD_PER_CREDIT = 0.01;

export const PER_ENGINE_CHECK = {
  chatgpt: 1,
  perplexity: 1,
  gemini: 1,
  google_ai_overviews: 1,
  google_ai_mode: 1.5,
  claude: 1.5,
  copilot: 1,
} as const;

export const PER_ACTION = {
  agent_chat: 2,
  agent_chat_deep: 10,
  content_generate: 20,
  prompts_generate: 5,
  topics_generate: 5,
  competitors_discover: 5,
  keyword_metrics: 1,
  prompt_research: 3,
  issue_fix: 10,
  content_seo: 8,
  content_interview: 6,
  opportunity_explain: 2,
  insight_narrative: 3,
  detected_market: 1,
  autodetect: 2,
  query_fanout: 2,
  domain_authority: 1,
  sentiment_score: 0.5,
} as const;

export type EngineKey = keyof typeof PER_ENGINE_CHECK;
export type BillableAction = keyof typeof PER_ACTION;
