import { callProvider, errorMessage, uniqueInOrder, type ClassifyError } from './call-provider.ts';
import { placeOf } from './location.ts';
import { ProviderError, type AdapterContext, type CapturedAd, type Capture, type CheckQuery, type EngineAdapter } from './provider.ts';
import { type Json, isObject, nonBlank } from './read-json.ts';

/**
 * Three engines through one provider (providers.md 1.5-1.7): Google's AI Overview (`engine=google`,
 * plus `engine=google_ai_overview` when Google lazy-loads it behind a page_token), Google AI Mode
 * (`engine=google_ai_mode`) and Bing Copilot (`engine=bing_copilot`). Every call is
 * `GET {base}/search.json?engine=...&api_key=...&no_cache=true&output=json`: SerpApi authenticates by
 * the `api_key` query parameter, and serves identical searches from a one-hour cache for free
 * (serpapi.com/google-ai-overview-api), so without `no_cache=true` repeated samples would be one
 * answer counted several times.
 *
 * SerpApi reports no price per search: costUsd is null. The model reported is settings.model, which
 * for these engines names the SerpApi engine (`google`, `google_ai_mode`, `bing_copilot`); the engine
 * actually sent is fixed per adapter, because each reply shape is parsed by engine.
 */

type Params = Record<string, string>;

interface Reference {
  link: string | undefined;
  index: number | undefined;
}

/** Documented as a 429 (serpapi.com/api-status-and-error-codes): the plan is used up, a billing matter, not throughput. */
const OUT_OF_SEARCHES = /run out of searches|searches for the month have run out/i;
/** A 200 whose search succeeded on an empty page: "Google hasn't returned any results for this query." (serpapi.com/search-errors). */
const NO_RESULTS = /(hasn't|has not) returned any results/i;
const INVALID_KEY = /invalid api key/i;

const classifySerpApi: ClassifyError = (_status, body) => (OUT_OF_SEARCHES.test(errorMessage(body) ?? '') ? 'quota' : undefined);

/**
 * Where a prompt's location goes in a Google search. A country code is Google's `gl`, lower case;
 * Google, and SerpApi's list of Google countries, spell the United Kingdom `uk` (not ISO's `gb`,
 * which placeOf gives for both `UK` and `GB`). Any other text is SerpApi's `location`, which it
 * matches to its nearest known place (serpapi.com/google-ai-mode-api). '' sends neither.
 */
export function googleLocationParams(location: string): Params {
  const { country, place } = placeOf(location);
  if (country !== undefined) return { gl: country === 'GB' ? 'uk' : country.toLowerCase() };
  if (place !== undefined) return { location: place };
  return {};
}

/** The request URL, `api_key` included: never put it in a message (see `search`). */
export function searchUrl(baseUrl: string, params: Params, apiKey: string): string {
  const query = new URLSearchParams({ ...params, api_key: apiKey, no_cache: 'true', output: 'json' });
  return `${baseUrl}/search.json?${query.toString()}`;
}

export type SearchReply = { outcome: 'results'; body: Json } | { outcome: 'no_results'; message: string };

/**
 * A 200 reply read as SerpApi documents it (serpapi.com/search-errors): a top-level `error` is either
 * an empty result page (the surface showed nothing: no_answer) or a failure named by its message;
 * `search_metadata.status` "Error" is a failed search on SerpApi's side (proxy timeout, internal
 * error): worth retrying.
 */
export function readSearchReply(body: unknown): SearchReply {
  if (!isObject(body)) throw new ProviderError('malformed', 'the reply is not a JSON object', { status: 200 });
  const metadata = body.search_metadata;
  const status = isObject(metadata) ? metadata.status : undefined;
  if (typeof body.error === 'string') {
    const message = body.error;
    if (NO_RESULTS.test(message)) return { outcome: 'no_results', message };
    if (OUT_OF_SEARCHES.test(message)) throw new ProviderError('quota', message, { status: 200 });
    if (INVALID_KEY.test(message)) throw new ProviderError('auth', message, { status: 200 });
    if (status === 'Error') throw new ProviderError('server_error', message, { status: 200 });
    throw new ProviderError('bad_request', message, { status: 200 });
  }
  if (status === 'Error') throw new ProviderError('server_error', 'SerpApi reports the search failed (search_metadata.status "Error")', { status: 200 });
  // A search still running in a synchronous reply has no results yet: reading it would record "no answer".
  if (status === 'Processing' || status === 'Queued') throw new ProviderError('server_error', `SerpApi returned the search unfinished (${status})`, { status: 200 });
  if (!isObject(metadata)) throw new ProviderError('malformed', 'the reply has no search_metadata', { status: 200 });
  return { outcome: 'results', body };
}

/**
 * The text blocks as plain text, in order: paragraphs and headings as lines, list items as "- "
 * lines (nested lists indented), tables as " | " rows, expandable sections by their title then their
 * own blocks. Read by field rather than by `type`, so a block type SerpApi adds later still shows
 * its text.
 */
export function renderTextBlocks(blocks: unknown[]): string {
  const lines: string[] = [];
  for (const block of blocks) renderBlock(block, lines);
  return lines.join('\n').trim();
}

function renderBlock(block: unknown, lines: string[]): void {
  if (!isObject(block)) return;
  for (const field of [block.title, block.snippet, block.code]) {
    const text = nonBlank(field);
    if (text !== undefined) lines.push(text);
  }
  if (Array.isArray(block.table)) {
    for (const row of block.table) {
      const cells = Array.isArray(row) ? row.map((cell) => nonBlank(cell) ?? '') : [];
      if (cells.some((cell) => cell !== '')) lines.push(cells.join(' | '));
    }
  }
  if (Array.isArray(block.list)) renderList(block.list, '', lines);
  if (Array.isArray(block.text_blocks)) for (const inner of block.text_blocks) renderBlock(inner, lines);
}

function renderList(items: unknown[], indent: string, lines: string[]): void {
  for (const item of items) {
    if (!isObject(item)) continue;
    const text = [nonBlank(item.title), nonBlank(item.snippet)].filter((part) => part !== undefined).join(' ');
    if (text !== '') lines.push(`${indent}- ${text}`);
    if (Array.isArray(item.list)) renderList(item.list, `${indent}  `, lines);
  }
}

/**
 * The links the answer shows: the references its blocks name by `reference_indexes`, in order of
 * first mention, each once; when no block names one, the references list in its order.
 */
export function citedLinks(blocks: unknown[], references: Reference[]): string[] {
  const byIndex = new Map<number, string | undefined>();
  references.forEach((reference, position) => byIndex.set(reference.index ?? position, reference.link));
  const named: (string | undefined)[] = [];
  const walk = (node: unknown): void => {
    if (!isObject(node)) return;
    if (Array.isArray(node.reference_indexes)) for (const index of node.reference_indexes) if (typeof index === 'number') named.push(byIndex.get(index));
    if (Array.isArray(node.list)) node.list.forEach(walk);
    if (Array.isArray(node.text_blocks)) node.text_blocks.forEach(walk);
  };
  blocks.forEach(walk);
  const cited = uniqueInOrder(named);
  return cited.length > 0 ? cited : uniqueInOrder(references.map((reference) => reference.link));
}

function readReferences(value: unknown): Reference[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ProviderError('malformed', '`references` is not a list', { status: 200 });
  return value.filter(isObject).map((reference) => ({
    link: nonBlank(reference.link),
    index: Number.isInteger(reference.index) ? (reference.index as number) : undefined,
  }));
}

/** `text_blocks` as documented: absent or empty means the surface showed no answer. */
function readBlocks(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new ProviderError('malformed', '`text_blocks` is not a list', { status: 200 });
  return value;
}

interface AnswerParts {
  answer: string;
  blocks: unknown[];
  references: Reference[];
  ads: CapturedAd[];
  model: string;
}

function answered({ answer, blocks, references, ads, model }: AnswerParts): Capture {
  return {
    outcome: 'ok',
    answer,
    citations: citedLinks(blocks, references),
    sources: uniqueInOrder(references.map((reference) => reference.link)),
    fanOutQueries: [], // SerpApi reports none for these engines
    ads,
    model,
    costUsd: null,
  };
}

function noAnswer(reason: string, model: string): Capture {
  return { outcome: 'no_answer', reason, model, costUsd: null };
}

const EMPTY = (surface: string) => new ProviderError('refused', `the ${surface} has blocks but no text`, { status: 200 });

/** An `ai_overview` object (from the search, or from the page_token follow-up) as a capture. */
export function parseAiOverview(overview: unknown, ads: CapturedAd[], model: string): Capture {
  if (overview === undefined || overview === null) return noAnswer('no AI Overview for this query', model);
  if (!isObject(overview)) throw new ProviderError('malformed', '`ai_overview` is not an object', { status: 200 });
  if (typeof overview.error === 'string') return noAnswer(`no AI Overview for this query: ${overview.error}`, model);
  const blocks = readBlocks(overview.text_blocks);
  if (blocks.length === 0) return noAnswer('no AI Overview text for this query', model);
  const answer = renderTextBlocks(blocks);
  if (answer === '') throw EMPTY('AI Overview');
  return answered({ answer, blocks, references: readReferences(overview.references), ads, model });
}

/** A `google_ai_mode` reply: the text blocks rendered, else SerpApi's `reconstructed_markdown`. */
export function parseAiModeReply(body: Json, model: string): Capture {
  const blocks = readBlocks(body.text_blocks);
  const markdown = nonBlank(body.reconstructed_markdown);
  if (blocks.length === 0 && markdown === undefined) return noAnswer('no AI Mode answer for this query', model);
  const answer = renderTextBlocks(blocks) || markdown;
  if (answer === undefined) throw EMPTY('AI Mode answer');
  return answered({ answer, blocks, references: readReferences(body.references), ads: [], model });
}

/** A `bing_copilot` reply: its `header` line, then the text blocks. */
export function parseCopilotReply(body: Json, model: string): Capture {
  const blocks = readBlocks(body.text_blocks);
  if (blocks.length === 0) return noAnswer('no Copilot answer for this query', model);
  const text = renderTextBlocks(blocks);
  if (text === '') throw EMPTY('Copilot answer');
  const header = nonBlank(body.header);
  const answer = header === undefined ? text : `${header}\n${text}`;
  return answered({ answer, blocks, references: readReferences(body.references), ads: [], model });
}

/**
 * The Google result page's ads (`ads[]`, top, middle and bottom blocks: serpapi.com/google-ads-organic-results).
 * The advertiser is the ad's `source`, else the host it displays, else its link's host. SerpApi
 * documents no sponsored units inside `ai_overview`, so none are read from there.
 */
export function serpAds(serp: Json): CapturedAd[] {
  if (!Array.isArray(serp.ads)) return [];
  return serp.ads.filter(isObject).flatMap((ad) => {
    const url = nonBlank(ad.link);
    const advertiser = nonBlank(ad.source) ?? hostOf(ad.displayed_link) ?? hostOf(url);
    return advertiser === undefined ? [] : [{ advertiser, url }];
  });
}

/** `https://www.example.com › shoes › red` or `www.example.com` -> `example.com`. */
function hostOf(value: unknown): string | undefined {
  const head = nonBlank(value)?.split('›')[0]?.trim();
  if (!head) return undefined;
  try {
    const host = new URL(/^[a-z][a-z\d+.-]*:\/\//i.test(head) ? head : `https://${head}`).hostname;
    return host.replace(/^www\./, '') || undefined;
  } catch {
    return undefined;
  }
}

/**
 * One SerpApi search within the check's time budget (settings.timeoutMs covers the whole check,
 * both calls when the AI Overview needs its follow-up). The key travels in the URL, so any message
 * that could echo the URL is scrubbed of it before it is recorded.
 */
async function search(params: Params, context: AdapterContext, deadline: number): Promise<SearchReply> {
  const { outbound, settings } = context;
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new ProviderError('timeout', `no reply within ${settings.timeoutMs} ms`);
  let body: unknown;
  try {
    body = await callProvider(outbound, { method: 'GET', url: searchUrl(settings.baseUrl, params, settings.apiKey), headers: {}, timeoutMs: remaining }, classifySerpApi);
  } catch (error) {
    if (error instanceof ProviderError && settings.apiKey !== '' && error.message.includes(settings.apiKey)) {
      throw new ProviderError(error.failure, error.message.replaceAll(settings.apiKey, '***'), { status: error.status, retryAfterMs: error.retryAfterMs });
    }
    throw error;
  }
  return readSearchReply(body);
}

async function checkAiOverview(query: CheckQuery, context: AdapterContext): Promise<Capture> {
  const { model, timeoutMs } = context.settings;
  const deadline = Date.now() + timeoutMs;
  // AI Overviews are shown for English searches only (serpapi.com/ai-overview): hl=en always.
  const first = await search({ engine: 'google', q: query.prompt, hl: 'en', ...googleLocationParams(query.location) }, context, deadline);
  if (first.outcome === 'no_results') return noAnswer(`no AI Overview for this query: ${first.message}`, model);
  const serp = first.body;
  let overview = serp.ai_overview;
  // Google lazy-loads some overviews: the search carries only a page_token, valid for 4 minutes, to fetch it with.
  if (isObject(overview) && !hasBlocks(overview.text_blocks) && overview.error === undefined && typeof overview.page_token === 'string') {
    const second = await search({ engine: 'google_ai_overview', page_token: overview.page_token }, context, deadline);
    if (second.outcome === 'no_results') return noAnswer(`no AI Overview for this query: ${second.message}`, model);
    overview = second.body.ai_overview;
  }
  return parseAiOverview(overview, serpAds(serp), model);
}

async function checkAiMode(query: CheckQuery, context: AdapterContext): Promise<Capture> {
  const { model, timeoutMs } = context.settings;
  const reply = await search({ engine: 'google_ai_mode', q: query.prompt, ...googleLocationParams(query.location) }, context, Date.now() + timeoutMs);
  return reply.outcome === 'no_results' ? noAnswer(`no AI Mode answer for this query: ${reply.message}`, model) : parseAiModeReply(reply.body, model);
}

/**
 * SerpApi's Bing Copilot engine takes no location or language parameter (serpapi.com/bing-copilot-api;
 * providers.md 1.5): the prompt's location is not applied, and Copilot answers from SerpApi's default.
 */
async function checkCopilot(query: CheckQuery, context: AdapterContext): Promise<Capture> {
  const { model, timeoutMs } = context.settings;
  const reply = await search({ engine: 'bing_copilot', q: query.prompt }, context, Date.now() + timeoutMs);
  return reply.outcome === 'no_results' ? noAnswer(`no Copilot answer for this query: ${reply.message}`, model) : parseCopilotReply(reply.body, model);
}

export const googleAiOverviewsAdapter: EngineAdapter = { provider: 'serpapi', surface: 'serp', check: checkAiOverview };
export const googleAiModeAdapter: EngineAdapter = { provider: 'serpapi', surface: 'serp', check: checkAiMode };
export const copilotAdapter: EngineAdapter = { provider: 'serpapi', surface: 'serp', check: checkCopilot };

function hasBlocks(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

