/**
 * The AI crawler registry: every AI crawler and AI agent we recognise by user agent, and the
 * platforms (operators) they belong to. Served flat by GET /api/v1/bots.json and compiled once into
 * the matcher in match-crawler.ts. Conventions and the decisions on contested entries: README.md.
 *
 * The agent list is ai.robots.txt's (vendor/ai-robots-txt/robots.json, updated by
 * scripts/sync-ai-robots.ts); this file is our overlay on it: platforms, purposes, the names we keep
 * of our own, the robots.txt-only tokens and the names we do not match. A new upstream agent is
 * matched without an edit here (platform `other` until curated).
 *
 * Invariants (pinned by match-crawler.test.ts): `token` is `name` lower-cased, tokens are unique,
 * every `platform` is a key of PLATFORMS.
 */
import { readFileSync } from 'node:fs';
import { buildRegistry } from './build-registry.ts';

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
  /** Matched only as `name` is written (a case variant is another product). */
  matchCase?: true;
}

export interface CuratedAgent {
  name: string;
  platform: string;
  purpose: CrawlerPurpose;
  matchCase?: true;
}

/** Our overlay on the upstream list, keyed by token (the lower-cased name). */
export interface RegistryOverlay {
  platforms: Readonly<Record<string, string>>;
  curated: Readonly<Record<string, CuratedAgent>>;
  /** Tokens for robots.txt only: no crawler sends them in its user agent. */
  robotsTxtOnly: Readonly<Record<string, { platform: string }>>;
  /** Upstream names never matched in user agents, with the reason. */
  notMatched: Readonly<Record<string, string>>;
  /** Curated tokens listed even though the upstream list lacks them. */
  ownNames: readonly string[];
}

/**
 * Platform key -> display label. Includes platforms known only by referrer (xai, character, poe,
 * jasper, writesonic, chatplus, alibaba, baidu ...): ai-referrals.ts labels its platforms from here.
 * `other` holds upstream agents not curated yet.
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
  brave: 'Brave',
  exa: 'Exa',
  kagi: 'Kagi',
  addsearch: 'AddSearch',
  lyrenth: 'Lyrenth',
  apify: 'Apify',
  cragsoftware: 'CragSoftware',
  valyu: 'Valyu',
  mozilla: 'Mozilla',
  querit: 'Querit',
  klaviyo: 'Klaviyo',
  geisthaus: 'GeistHaus',
  buddybot: 'BuddyBot Learning',
  useai: 'Use AI',
  quantumcloud: 'QuantumCloud (WPBot)',
  quillbot: 'QuillBot',
  semrush: 'Semrush',
  twin: 'Twin',
  opencode: 'OpenCode',
  lightpanda: 'Lightpanda',
  agenttimes: 'The Agent Times',
  aihit: 'aiHit',
  awario: 'Awario',
  datenbank: 'Datenbank',
  factset: 'FactSet',
  iss: 'ISS Corporate',
  laion: 'LAION',
  linguee: 'Linguee',
  naget: 'Naget',
  netestate: 'netEstate',
  panscient: 'Panscient',
  poseidon: 'Poseidon Research',
  reflection: 'Reflection AI',
  sidetrade: 'Sidetrade',
  thinkbot: 'Thinkbot',
  webspark: 'WEBSPARK',
  meltwater: 'Meltwater',
  other: 'Other (listed by ai.robots.txt)',
});

/**
 * robots.txt control tokens: a site names them to opt out of a use (Gemini training, Apple
 * Intelligence training); the operator's crawlers keep their own user agents (Googlebot, Applebot).
 * Listed in bots.json under `robotsTxtOnly`, never matched.
 */
const ROBOTS_TXT_ONLY: RegistryOverlay['robotsTxtOnly'] = {
  'google-extended': { platform: 'google' },
  'applebot-extended': { platform: 'apple' },
};

/**
 * Upstream names we never match in user agents (denied by default: each needs a reason). Matching
 * them would flag ordinary software or a non-AI crawler (the corpus rows named are in
 * test/fixtures/agents/).
 */
const NOT_MATCHED: RegistryOverlay['notMatched'] = {
  code: 'VS Code sends `Code/<version>` on every request it makes (ambiguous_uas.tsv)',
  cursor: 'the Cursor editor sends `Cursor/<version>` on every request it makes',
  trae: 'the Trae editor sends `Trae/<version>` on every request it makes (ambiguous_uas.tsv)',
  openai: "OpenAI's SDKs send `OpenAI/JS`, `OpenAI/Python` from developers' own code (ambiguous_uas.tsv)",
  scrapy: 'a general scraping framework, `Scrapy/<version>` by default (ambiguous_uas.tsv)',
  spider: "the word is in search crawlers' names: `Sogou web spider`, `Screaming Frog SEO Spider` (non_ai_uas.tsv)",
  lcc: 'three letters with no documented crawler behind them',
  facebookexternalhit: "Meta's link-preview fetcher: not an AI crawler by our rule (non_ai_uas.tsv, social-preview)",
};

function curate(name: string, platform: string, purpose: CrawlerPurpose): CuratedAgent {
  return { name, platform, purpose };
}

/** Names we list of our own, from the corpus or the operator's documentation: ai.robots.txt lacks them. */
const OUR_OWN = new Set<string>();
function ours(agent: CuratedAgent): CuratedAgent {
  OUR_OWN.add(agent.name.toLowerCase());
  return agent;
}

/**
 * Platform and purpose of the agents we know, by name (cased as in user agents). Agents of the
 * upstream list not here get platform `other` and a purpose read from their upstream description;
 * curating one is adding a line here. Contested entries say why they are counted.
 */
const CURATED_ENTRIES: readonly CuratedAgent[] = [
  // OpenAI. ChatGPT agent, Operator and Atlas browse with ordinary Chrome UAs (told apart only by
  // their Signature-Agent header, which access logs do not keep): the two names below catch only a
  // UA that names them, as ai.robots.txt lists them.
  curate('GPTBot', 'openai', 'training'),
  curate('OAI-SearchBot', 'openai', 'search'),
  curate('ChatGPT-User', 'openai', 'user'),
  curate('ChatGPT Agent', 'openai', 'agent'),
  curate('Operator', 'openai', 'agent'),

  // Anthropic.
  curate('ClaudeBot', 'anthropic', 'training'),
  curate('Claude-SearchBot', 'anthropic', 'search'),
  curate('Claude-User', 'anthropic', 'user'),
  curate('Claude-Web', 'anthropic', 'user'), // undocumented older claude.ai fetcher
  curate('anthropic-ai', 'anthropic', 'training'), // robots token, also seen bare as a UA
  // Contested (ambiguous_uas.tsv): `claude-code/<version> (cli)` is Claude Code itself, listed as a bot
  // by isbot and ai.robots.txt. It is an AI coding agent acting on a site, so it counts; the token is
  // specific (not the generic `code`). Newer versions send `Claude-User (claude-code/...)`, which the
  // leftmost-match rule attributes to Claude-User.
  curate('Claude-Code', 'anthropic', 'agent'),

  // Perplexity.
  curate('PerplexityBot', 'perplexity', 'search'),
  curate('Perplexity-User', 'perplexity', 'user'),

  // Google. Googlebot (and its -Image/-News/-Video forms) is search, not AI: AI Overviews/AI Mode reuse it
  // and cannot be told apart by UA. Contested: GoogleOther(-Image/-Video) is Google's generic R&D fetcher;
  // it feeds no Google Search product, ai.robots.txt lists it as an AI data scraper and the corpus labels it
  // AI, so it is counted, as training (one-off research crawls).
  curate('GoogleOther', 'google', 'training'),
  curate('GoogleOther-Image', 'google', 'training'),
  curate('GoogleOther-Video', 'google', 'training'),
  curate('Google-CloudVertexBot', 'google', 'search'), // site-owner-requested crawls for Vertex AI agents
  curate('CloudVertexBot', 'google', 'search'), // the same crawler, as knownagents.com names it
  curate('Gemini-Deep-Research', 'google', 'user'),
  curate('Google-NotebookLM', 'google', 'user'),
  curate('NotebookLM', 'google', 'user'),
  ours(curate('Google-GeminiNotebook', 'google', 'user')), // Google's user-triggered fetchers page
  curate('Google-Firebase', 'google', 'user'), // fetches for apps built on Firebase AI
  curate('GoogleAgent-Mariner', 'google', 'agent'),
  curate('GoogleAgent-URLContext', 'google', 'user'), // Gemini API url_context fetches (ai.robots.txt)
  curate('Google-Agent', 'google', 'agent'),
  curate('Google-Gemini-CLI', 'google', 'agent'),

  // Microsoft. Copilot answers come from bingbot's index (search, not AI); only Azure AI Search's
  // crawler carries a distinct AI token.
  curate('AzureAI-SearchBot', 'microsoft', 'search'),

  // Apple. Contested: Applebot is Apple's only crawler UA; its index powers Siri, Spotlight and Apple
  // Intelligence answers, and Apple has no classic web search product of its own to set it apart from
  // (unlike Googlebot/bingbot). ai.robots.txt and Matomo list it as an AI search crawler: counted, as
  // search. Applebot-Extended is a robots.txt token only.
  curate('Applebot', 'apple', 'search'),

  // Meta. facebookexternalhit (link previews) is not here.
  curate('meta-externalagent', 'meta', 'training'),
  curate('meta-externalfetcher', 'meta', 'user'),
  curate('meta-webindexer', 'meta', 'search'),
  curate('FacebookBot', 'meta', 'training'),

  // Amazon. Contested: Amazonbot (Alexa answers) and Amzn-User (isbot lists it as a browser) are
  // listed by ai.robots.txt as AI crawlers/assistants: counted.
  curate('Amazonbot', 'amazon', 'search'),
  curate('Amzn-SearchBot', 'amazon', 'search'),
  curate('Amzn-User', 'amazon', 'user'),
  curate('NovaAct', 'amazon', 'agent'),
  curate('AmazonBuyForMe', 'amazon', 'agent'),
  curate('bedrockbot', 'amazon', 'search'), // Bedrock knowledge-base web crawler
  curate('amazon-kendra', 'amazon', 'search'),
  curate('amazon-QBusiness', 'amazon', 'search'),

  // ByteDance. Contested (Matomo: search bot; ai.robots.txt: LLM training): no ByteDance search product
  // explains this volume, so training.
  curate('Bytespider', 'bytedance', 'training'),
  curate('TikTokSpider', 'bytedance', 'training'),

  // Common Crawl: an open archive, the most-used LLM pre-training source; counted as training.
  curate('CCBot', 'commoncrawl', 'training'),

  curate('MistralAI-User', 'mistral', 'user'),
  ours(curate('MistralAI-Index', 'mistral', 'search')),
  curate('DeepSeekBot', 'deepseek', 'training'), // single-source (ai.robots.txt), kept: specific name
  curate('DuckAssistBot', 'duckduckgo', 'user'), // real-time fetches for DuckAssist answers; DuckDuckBot is search
  curate('YouBot', 'you', 'search'),
  curate('cohere-ai', 'cohere', 'user'),
  curate('cohere-training-data-crawler', 'cohere', 'training'),
  curate('AI2Bot', 'allenai', 'training'),
  curate('Ai2Bot-Dolma', 'allenai', 'training'),
  curate('AI2Bot-DeepResearchEval', 'allenai', 'user'),

  // Huawei. Contested: PetalBot is Petal Search's crawler, which ai.robots.txt says also feeds Huawei's
  // AI assistant and AI search; the corpus follows ai.robots.txt where sources disagree, so it counts
  // (as search). The rule that separates it from Googlebot/bingbot: ai.robots.txt lists it, not them.
  curate('PetalBot', 'huawei', 'search'),
  curate('PanguBot', 'huawei', 'training'),

  // Yandex: only the YandexGPT fetchers; YandexBot and YandexImages are search.
  curate('YandexAdditional', 'yandex', 'search'),
  curate('YandexAdditionalBot', 'yandex', 'search'),

  ours(curate('KimiBot', 'moonshot', 'training')),
  ours(curate('Kimi-SearchBot', 'moonshot', 'search')),
  curate('Kimi-User', 'moonshot', 'user'),
  curate('ChatGLM-Spider', 'zhipu', 'training'),
  curate('TongyiBot', 'alibaba', 'user'), // in ai.robots.txt, no UA seen in the corpus
  curate('YiyanBot', 'baidu', 'user'), // in ai.robots.txt, no UA seen in the corpus; Baiduspider is search
  curate('iAskBot', 'iask', 'search'),
  curate('iaskspider', 'iask', 'search'),
  curate('PhindBot', 'phind', 'search'),

  // Data brokers whose crawls are sold for LLM training. Contested (generic crawlers elsewhere); counted
  // because ai.robots.txt lists them and the corpus follows it.
  curate('omgili', 'webzio', 'training'),
  curate('omgilibot', 'webzio', 'training'),
  curate('webzio-extended', 'webzio', 'training'),
  curate('Diffbot', 'diffbot', 'training'),
  curate('Timpibot', 'timpi', 'training'),

  // Smaller AI operators, one bot each.
  curate('ImagesiftBot', 'imagesift', 'search'),
  curate('LinerBot', 'liner', 'user'),
  curate('Andibot', 'andi', 'search'),
  curate('Manus-User', 'manus', 'agent'),
  curate('Devin', 'cognition', 'agent'),
  curate('FirecrawlAgent', 'firecrawl', 'user'),
  curate('TavilyBot', 'tavily', 'search'),
  curate('Brightbot', 'brightdata', 'training'),
  curate('LinkupBot', 'linkup', 'search'),
  curate('ShapBot', 'parallel', 'search'),
  curate('Shap-User', 'parallel', 'user'),
  curate('Cotoyogi', 'rois', 'training'),
  curate('SBIntuitionsBot', 'sbintuitions', 'training'),
  curate('ICC-Crawler', 'nict', 'training'),
  curate('img2dataset', 'img2dataset', 'training'),
  curate('Crawlspace', 'crawlspace', 'search'),
  curate('Cloudflare-AutoRAG', 'cloudflare', 'search'),
  curate('atlassian-bot', 'atlassian', 'search'),
  curate('QualifiedBot', 'qualified', 'search'),
  curate('Poggio-Citations', 'poggio', 'user'),
  curate('bigsur.ai', 'bigsur', 'user'),
  curate('Channel3Bot', 'channel3', 'search'),
  curate('ZanistaBot', 'zanista', 'search'),
  curate('Anomura', 'direqt', 'search'),
  curate('Kangaroo Bot', 'kangaroo', 'training'),
  curate('FriendlyCrawler', 'friendlycrawler', 'training'),
  curate('VelenPublicWebCrawler', 'velen', 'training'),
  curate('TerraCotta', 'ceramic', 'search'),
  curate('Terra Cotta', 'ceramic', 'search'),
  curate('EchoboxBot', 'echobox', 'training'),
  curate('Echobot Bot', 'echobox', 'training'),

  // Search and data APIs for AI (indexes that answers and agents draw from).
  curate('Bravebot', 'brave', 'search'),
  // Exalead's search crawler is `Exabot` (non_ai_uas.tsv): Exa's is matched only as written, `ExaBot`.
  { name: 'ExaBot', platform: 'exa', purpose: 'search', matchCase: true },
  curate('ExaSearchBot', 'exa', 'search'),
  curate('AddSearchBot', 'addsearch', 'search'),
  curate('AIWebIndex', 'lyrenth', 'search'),
  curate('ApifyBot', 'apify', 'search'),
  curate('ApifyWebsiteContentCrawler', 'apify', 'search'),
  curate('CragCrawler', 'cragsoftware', 'search'),
  curate('HenkBot', 'valyu', 'search'),
  curate('Mozilla-Tabstack', 'mozilla', 'search'),
  curate('Querit-SearchBot', 'querit', 'search'),
  curate('QueritBot', 'querit', 'search'),

  // Assistants and agents fetching for a person.
  curate('kagi-fetcher', 'kagi', 'user'),
  curate('KlaviyoAIBot', 'klaviyo', 'user'),
  curate('GeistHaus-PageFetcher', 'geisthaus', 'user'),
  curate('BuddyBot', 'buddybot', 'user'),
  curate('UseAI', 'useai', 'user'),
  curate('wpbot', 'quantumcloud', 'user'),
  curate('QuillBot', 'quillbot', 'user'),
  curate('quillbot.com', 'quillbot', 'user'),
  curate('SemrushBot-OCOB', 'semrush', 'user'), // ContentShake AI; plain SemrushBot is SEO, not AI
  curate('SemrushBot-SWA', 'semrush', 'user'), // SEO Writing Assistant
  curate('TwinAgent', 'twin', 'agent'),
  curate('opencode', 'opencode', 'agent'), // a coding agent's own product token (not the generic `code`)
  curate('Lightpanda', 'lightpanda', 'agent'), // a headless browser made for AI agents

  // Data collected for models.
  curate('AgentTimes', 'agenttimes', 'training'),
  curate('aiHitBot', 'aihit', 'training'),
  curate('Awario', 'awario', 'training'),
  curate('Datenbank Crawler', 'datenbank', 'training'),
  curate('Factset_spyderbot', 'factset', 'training'),
  curate('ISSCyberRiskCrawler', 'iss', 'training'),
  curate('laion-huggingface-processor', 'laion', 'training'),
  curate('LAIONDownloader', 'laion', 'training'),
  curate('Linguee Bot', 'linguee', 'training'),
  curate('NagetBot', 'naget', 'training'),
  curate('netEstate Imprint Crawler', 'netestate', 'training'),
  curate('Panscient', 'panscient', 'training'),
  curate('panscient.com', 'panscient', 'training'),
  curate('Poseidon Research Crawler', 'poseidon', 'training'),
  curate('Reflectionbot', 'reflection', 'training'),
  curate('Sidetrade indexer bot', 'sidetrade', 'training'),
  curate('Thinkbot', 'thinkbot', 'training'),
  curate('WARDBot', 'webspark', 'training'),
  curate('YaK', 'meltwater', 'training'), // Meltwater (formerly Linkfluence) consumer-intelligence crawler
];


const OVERLAY: RegistryOverlay = Object.freeze({
  platforms: PLATFORMS,
  curated: Object.freeze(Object.fromEntries(CURATED_ENTRIES.map((entry) => [entry.name.toLowerCase(), Object.freeze(entry)]))),
  robotsTxtOnly: Object.freeze(ROBOTS_TXT_ONLY),
  notMatched: Object.freeze(NOT_MATCHED),
  ownNames: Object.freeze([...OUR_OWN]),
});

const REGISTRY = buildRegistry(JSON.parse(readFileSync(new URL('./vendor/ai-robots-txt/robots.json', import.meta.url), 'utf8')), OVERLAY);

/** Every AI crawler and agent recognised by user agent. */
export const CRAWLERS: readonly Crawler[] = REGISTRY.crawlers;

/** robots.txt tokens no crawler sends (bots.json `robotsTxtOnly`). */
export const ROBOTS_TXT_TOKENS = REGISTRY.robotsTxtOnly;

/** Every name of the upstream list and what the registry makes of it (tests, the sync script). */
export const UPSTREAM_AGENTS = REGISTRY.upstream;

/** The overlay, for the sync script's preview of a new upstream list. */
export const REGISTRY_OVERLAY = OVERLAY;
