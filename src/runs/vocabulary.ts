/** The closed vocabularies of run records and of what the analytics report about them. */

export const ENGINE_KEYS = ['chatgpt', 'perplexity', 'gemini', 'google_ai_overviews', 'google_ai_mode', 'claude', 'copilot'] as const;
export type EngineKey = (typeof ENGINE_KEYS)[number];

export const CITATION_STATUSES = ['verified', 'broken', 'hallucinated', 'unchecked', 'stale'] as const;
export type CitationStatus = (typeof CITATION_STATUSES)[number];

export const ARTICLE_TYPES = ['video', 'forum', 'comparison', 'listicle', 'review', 'docs', 'news', 'blog', 'homepage', 'other'] as const;
export type ArticleType = (typeof ARTICLE_TYPES)[number];

export const SOURCE_TYPES = ['owned', 'competitor', 'editorial', 'ugc', 'corporate', 'institutional', 'review', 'social', 'other'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const includes = <T extends string>(list: readonly T[], value: unknown): value is T =>
  typeof value === 'string' && (list as readonly string[]).includes(value);
