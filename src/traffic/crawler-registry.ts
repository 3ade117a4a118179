/**
 * The AI crawler registry, as data: every AI crawler and AI agent we recognise by user-agent, and the
 * platforms (operators) they belong to. Served flat by GET /api/v1/bots.json and compiled once into
 * the matcher in match-crawler.ts. Conventions and the decisions on contested entries: README.md.
 *
 * Invariants (pinned by match-crawler.test.ts): `token` is `name` lower-cased, tokens are unique,
 * every `platform` is a key of PLATFORMS.
 */

export const REGISTRY_SCHEMA_VERSION = 1;

/** training crawler, search indexing (for AI answers), user-initiated fetch, autonomous agent. */
export type CrawlerPurpose = 'training' | 'search' | 'user' | 'agent';

export interface Crawler {
  /** Canonical bot name, cased as it appears in the user-agent. */
  name: string;
  /** Lowercase machine key, a key of PLATFORMS. */
  platform: string;
  platformLabel: string;
  /** Lowercase substring matched in the user-agent, on token boundaries (see match-crawler.ts). */
  token: string;
  purpose: CrawlerPurpose;
}

/**
 * Platform key -> display label. Includes platforms known only by referrer (xai, character, poe,
 * jasper, writesonic, chatplus, alibaba, baidu ...): ai-referrals.ts labels its platforms from here.
 */
export const PLATFORMS: Readonly<Record<string, string>> = Object.freeze({
  openai: 'OpenAI',
  anthropic: 'Anthropic',
  perplexity: 'Perplexity',
  google: 'Google',
  microsoft: 'Microsoft',
  apple: 'Apple',
  meta: 'Meta',
  amazon: 'Amazon',
  bytedance: 'ByteDance',
  commoncrawl: 'Common Crawl',
  mistral: 'Mistral AI',
  deepseek: 'DeepSeek',
  xai: 'xAI',
  duckduckgo: 'DuckDuckGo',
  you: 'You.com',
  cohere: 'Cohere',
  allenai: 'Ai2 (Allen Institute for AI)',
  huawei: 'Huawei',
  yandex: 'Yandex',
  moonshot: 'Moonshot AI (Kimi)',
  zhipu: 'Zhipu AI (ChatGLM)',
  alibaba: 'Alibaba (Qwen)',
  baidu: 'Baidu (ERNIE/Yiyan)',
  character: 'Character.AI',
  poe: 'Poe (Quora)',
  iask: 'iAsk',
  phind: 'Phind',
  webzio: 'Webz.io',
  diffbot: 'Diffbot',
  timpi: 'Timpi',
  imagesift: 'ImageSift',
  liner: 'Liner',
  andi: 'Andi',
  manus: 'Manus',
  cognition: 'Cognition (Devin)',
  firecrawl: 'Firecrawl',
  tavily: 'Tavily',
  brightdata: 'Bright Data',
  linkup: 'Linkup',
  parallel: 'Parallel Web Systems',
  rois: 'ROIS (Cotoyogi)',
  sbintuitions: 'SB Intuitions',
  nict: 'NICT',
  img2dataset: 'img2dataset',
  crawlspace: 'Crawlspace',
  cloudflare: 'Cloudflare',
  atlassian: 'Atlassian',
  qualified: 'Qualified',
  poggio: 'Poggio',
  bigsur: 'Big Sur AI',
  channel3: 'Channel3',
  zanista: 'Zanista AI',
  direqt: 'Direqt',
  kangaroo: 'Kangaroo LLM',
  friendlycrawler: 'FriendlyCrawler',
  velen: 'Velen',
  ceramic: 'Ceramic AI',
  echobox: 'Echobox',
  jasper: 'Jasper',
  writesonic: 'Writesonic',
  chatplus: 'Chat+',
});

function crawler(name: string, platform: string, purpose: CrawlerPurpose): Crawler {
  const platformLabel = PLATFORMS[platform];
  // Fails at import, not at request time, if the table below names an unknown platform.
  if (platformLabel === undefined) throw new Error(`crawler ${name}: platform "${platform}" is not in PLATFORMS`);
  return Object.freeze({ name, platform, platformLabel, token: name.toLowerCase(), purpose });
}

/**
 * Every AI crawler and agent recognised by user-agent. Deliberately absent (see README.md):
 * Googlebot, bingbot, DuckDuckBot, YandexBot, Baiduspider (classic search, even where the same index
 * feeds AI answers); facebookexternalhit and other link-preview fetchers; Google-Extended and
 * Applebot-Extended (robots.txt tokens with no user-agent of their own); generic names from
 * ai.robots.txt (Spider, Code, Operator, Cursor, OpenAI, LCC, Trae, Scrapy) that would misfire on
 * ordinary software; ExaBot (collides with Exalead's search crawler Exabot).
 */
export const CRAWLERS: readonly Crawler[] = Object.freeze([
  // OpenAI. ChatGPT agent / Operator / Atlas browse with ordinary Chrome UAs: not matchable by UA.
  crawler('GPTBot', 'openai', 'training'),
  crawler('OAI-SearchBot', 'openai', 'search'),
  crawler('ChatGPT-User', 'openai', 'user'),

  // Anthropic.
  crawler('ClaudeBot', 'anthropic', 'training'),
  crawler('Claude-SearchBot', 'anthropic', 'search'),
  crawler('Claude-User', 'anthropic', 'user'),
  crawler('Claude-Web', 'anthropic', 'user'), // undocumented older claude.ai fetcher
  crawler('anthropic-ai', 'anthropic', 'training'), // robots token, also seen bare as a UA
  // Contested (ambiguous_uas.tsv): `claude-code/<version> (cli)` is Claude Code itself, listed as a bot
  // by isbot and ai.robots.txt. It is an AI coding agent acting on a site, so it counts; the token is
  // specific (not the generic `code`). Newer versions send `Claude-User (claude-code/...)`, which the
  // leftmost-match rule attributes to Claude-User.
  crawler('Claude-Code', 'anthropic', 'agent'),

  // Perplexity.
  crawler('PerplexityBot', 'perplexity', 'search'),
  crawler('Perplexity-User', 'perplexity', 'user'),

  // Google. Googlebot (and its -Image/-News/-Video forms) is search, not AI: AI Overviews/AI Mode reuse it
  // and cannot be told apart by UA. Contested: GoogleOther(-Image/-Video) is Google's generic R&D fetcher;
  // it feeds no Google Search product, ai.robots.txt lists it as an AI data scraper and the corpus labels it
  // AI, so it is counted, as training (one-off research crawls).
  crawler('GoogleOther', 'google', 'training'),
  crawler('GoogleOther-Image', 'google', 'training'),
  crawler('GoogleOther-Video', 'google', 'training'),
  crawler('Google-CloudVertexBot', 'google', 'search'), // site-owner-requested crawls for Vertex AI agents
  crawler('Gemini-Deep-Research', 'google', 'user'),
  crawler('Google-NotebookLM', 'google', 'user'),
  crawler('Google-GeminiNotebook', 'google', 'user'),
  crawler('GoogleAgent-Mariner', 'google', 'agent'),
  crawler('GoogleAgent-URLContext', 'google', 'user'), // Gemini API url_context fetches (ai.robots.txt)
  crawler('Google-Agent', 'google', 'agent'),
  crawler('Google-Gemini-CLI', 'google', 'agent'),

  // Microsoft. Copilot answers come from bingbot's index (search, not AI); only Azure AI Search's
  // crawler carries a distinct AI token.
  crawler('AzureAI-SearchBot', 'microsoft', 'search'),

  // Apple. Contested: Applebot is Apple's only crawler UA; its index powers Siri, Spotlight and Apple
  // Intelligence answers, and Apple has no classic web search product of its own to set it apart from
  // (unlike Googlebot/bingbot). ai.robots.txt and Matomo list it as an AI search crawler: counted, as
  // search. Applebot-Extended is a robots.txt token only.
  crawler('Applebot', 'apple', 'search'),

  // Meta. facebookexternalhit (link previews) is not here.
  crawler('meta-externalagent', 'meta', 'training'),
  crawler('meta-externalfetcher', 'meta', 'user'),
  crawler('meta-webindexer', 'meta', 'search'),
  crawler('FacebookBot', 'meta', 'training'),

  // Amazon. Contested: Amazonbot (Alexa answers) and Amzn-User (isbot lists it as a browser) are
  // listed by ai.robots.txt as AI crawlers/assistants: counted.
  crawler('Amazonbot', 'amazon', 'search'),
  crawler('Amzn-SearchBot', 'amazon', 'search'),
  crawler('Amzn-User', 'amazon', 'user'),
  crawler('NovaAct', 'amazon', 'agent'),
  crawler('AmazonBuyForMe', 'amazon', 'agent'),
  crawler('bedrockbot', 'amazon', 'search'), // Bedrock knowledge-base web crawler
  crawler('amazon-kendra', 'amazon', 'search'),
  crawler('amazon-QBusiness', 'amazon', 'search'),

  // ByteDance. Contested (Matomo: search bot; ai.robots.txt: LLM training): no ByteDance search product
  // explains this volume, so training.
  crawler('Bytespider', 'bytedance', 'training'),
  crawler('TikTokSpider', 'bytedance', 'training'),

  // Common Crawl: an open archive, the most-used LLM pre-training source; counted as training.
  crawler('CCBot', 'commoncrawl', 'training'),

  crawler('MistralAI-User', 'mistral', 'user'),
  crawler('MistralAI-Index', 'mistral', 'search'),
  crawler('DeepSeekBot', 'deepseek', 'training'), // single-source (ai.robots.txt), kept: specific name
  crawler('DuckAssistBot', 'duckduckgo', 'user'), // real-time fetches for DuckAssist answers; DuckDuckBot is search
  crawler('YouBot', 'you', 'search'),
  crawler('cohere-ai', 'cohere', 'user'),
  crawler('cohere-training-data-crawler', 'cohere', 'training'),
  crawler('AI2Bot', 'allenai', 'training'),
  crawler('Ai2Bot-Dolma', 'allenai', 'training'),
  crawler('AI2Bot-DeepResearchEval', 'allenai', 'user'),

  // Huawei. Contested: PetalBot is Petal Search's crawler, which ai.robots.txt says also feeds Huawei's
  // AI assistant and AI search; the corpus follows ai.robots.txt where sources disagree, so it counts
  // (as search). The rule that separates it from Googlebot/bingbot: ai.robots.txt lists it, not them.
  crawler('PetalBot', 'huawei', 'search'),
  crawler('PanguBot', 'huawei', 'training'),

  // Yandex: only the YandexGPT fetchers; YandexBot and YandexImages are search.
  crawler('YandexAdditional', 'yandex', 'search'),
  crawler('YandexAdditionalBot', 'yandex', 'search'),

  crawler('KimiBot', 'moonshot', 'training'),
  crawler('Kimi-SearchBot', 'moonshot', 'search'),
  crawler('Kimi-User', 'moonshot', 'user'),
  crawler('ChatGLM-Spider', 'zhipu', 'training'),
  crawler('TongyiBot', 'alibaba', 'user'), // in ai.robots.txt, no UA seen in the corpus
  crawler('YiyanBot', 'baidu', 'user'), // in ai.robots.txt, no UA seen in the corpus; Baiduspider is search
  crawler('iAskBot', 'iask', 'search'),
  crawler('iaskspider', 'iask', 'search'),
  crawler('PhindBot', 'phind', 'search'),

  // Data brokers whose crawls are sold for LLM training. Contested (generic crawlers elsewhere); counted
  // because ai.robots.txt lists them and the corpus follows it.
  crawler('omgili', 'webzio', 'training'),
  crawler('omgilibot', 'webzio', 'training'),
  crawler('webzio-extended', 'webzio', 'training'),
  crawler('Diffbot', 'diffbot', 'training'),
  crawler('Timpibot', 'timpi', 'training'),

  // Smaller AI operators, one bot each.
  crawler('ImagesiftBot', 'imagesift', 'search'),
  crawler('LinerBot', 'liner', 'user'),
  crawler('Andibot', 'andi', 'search'),
  crawler('Manus-User', 'manus', 'agent'),
  crawler('Devin', 'cognition', 'agent'),
  crawler('FirecrawlAgent', 'firecrawl', 'user'),
  crawler('TavilyBot', 'tavily', 'search'),
  crawler('Brightbot', 'brightdata', 'training'),
  crawler('LinkupBot', 'linkup', 'search'),
  crawler('ShapBot', 'parallel', 'search'),
  crawler('Shap-User', 'parallel', 'user'),
  crawler('Cotoyogi', 'rois', 'training'),
  crawler('SBIntuitionsBot', 'sbintuitions', 'training'),
  crawler('ICC-Crawler', 'nict', 'training'),
  crawler('img2dataset', 'img2dataset', 'training'),
  crawler('Crawlspace', 'crawlspace', 'search'),
  crawler('Cloudflare-AutoRAG', 'cloudflare', 'search'),
  crawler('atlassian-bot', 'atlassian', 'search'),
  crawler('QualifiedBot', 'qualified', 'search'),
  crawler('Poggio-Citations', 'poggio', 'user'),
  crawler('bigsur.ai', 'bigsur', 'user'),
  crawler('Channel3Bot', 'channel3', 'search'),
  crawler('ZanistaBot', 'zanista', 'search'),
  crawler('Anomura', 'direqt', 'search'),
  crawler('Kangaroo Bot', 'kangaroo', 'training'),
  crawler('FriendlyCrawler', 'friendlycrawler', 'training'),
  crawler('VelenPublicWebCrawler', 'velen', 'training'),
  crawler('TerraCotta', 'ceramic', 'search'),
  crawler('EchoboxBot', 'echobox', 'training'),
]);
