import { callProvider, errorMessage, uniqueInOrder, type ClassifyError } from './call-provider.ts';
import { placeOf } from './location.ts';
import { ProviderError, type AdapterContext, type Capture, type CheckQuery, type EngineAdapter, type ProviderFailure } from './provider.ts';
import { type Json, asString, isObject, listOf, nonBlank } from './read-json.ts';

/**
 * The `claude` engine: the Anthropic Messages API with the `web_search_20250305` server tool
 * (providers.md 1.4), `POST {base}/v1/messages`, the key in `x-api-key`, `anthropic-version: 2023-06-01`.
 *
 * Location: the tool's `user_location` (type `approximate`): a country code as `country` (ISO
 * alpha-2, `UK` sent as `GB`), any other text as `city`, as written ("Berlin, Germany"). '' sends none.
 *
 * A turn in which the server's search loop runs long stops with `pause_turn`; it is resent with the
 * assistant content so far appended, at most MAX_ROUNDS requests, all within settings.timeoutMs.
 * The capture reads every round's content together.
 *
 * Cost: the reply reports tokens and `usage.server_tool_use.web_search_requests`, no price, so
 * costUsd is null. The API always answers, so there is no `no_answer`.
 */

const ANTHROPIC_VERSION = '2023-06-01';
const MAX_TOKENS = 2048;
const MAX_SEARCHES = 5;
/** Requests per check: the first and up to three `pause_turn` continuations. */
const MAX_ROUNDS = 4;

/**
 * Money run out, whatever the status: a monthly spend cap (429 rate_limit_error with
 * error.details.error_code `enforced_spend_limit_reached`, no retry-after), a workspace spend limit
 * or an empty credit balance (400 invalid_request_error), a billing_error (402).
 */
const BILLING_MESSAGE = /credit balance is too low|spend limit|specified (workspace )?API usage limits/i;

const classifyAnthropic: ClassifyError = (status, body) => {
  const error = isObject(body) && isObject(body.error) ? body.error : {};
  const details = isObject(error.details) ? error.details : {};
  if (error.type === 'billing_error' || details.error_code === 'enforced_spend_limit_reached' || BILLING_MESSAGE.test(errorMessage(body) ?? '')) return 'quota';
  if (status === 529 || error.type === 'overloaded_error') return 'server_error';
  if (error.type === 'authentication_error' || error.type === 'permission_error') return 'auth';
  return undefined;
};

export function userLocation(location: string): Json | undefined {
  const { country, place } = placeOf(location);
  if (country !== undefined) return { type: 'approximate', country };
  if (place !== undefined) return { type: 'approximate', city: place };
  return undefined;
}

export function anthropicRequestBody(query: CheckQuery, model: string, assistantSoFar: unknown[] = []): Json {
  const where = userLocation(query.location);
  const messages: Json[] = [{ role: 'user', content: query.prompt }];
  // A paused turn continues from the assistant content as the API returned it (server-tools docs).
  if (assistantSoFar.length > 0) messages.push({ role: 'assistant', content: assistantSoFar });
  return {
    model,
    max_tokens: MAX_TOKENS,
    messages,
    tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: MAX_SEARCHES, ...(where === undefined ? {} : { user_location: where }) }],
  };
}

/** One reply's parts the loop needs: its content blocks, why it stopped, the model. */
export interface MessageReply {
  content: unknown[];
  stopReason: string | undefined;
  model: string | undefined;
}

export function readMessageReply(body: unknown): MessageReply {
  if (!isObject(body) || !Array.isArray(body.content)) throw new ProviderError('malformed', 'the reply has no `content` list', { status: 200 });
  return { content: body.content, stopReason: nonBlank(body.stop_reason), model: nonBlank(body.model) };
}

/**
 * The whole turn's content blocks as a capture. Text: runs of adjacent text blocks (a cited
 * sentence arrives split into several) joined as they are, runs separated by tool blocks joined by
 * a blank line. Citations: the text blocks' `web_search_result_location` URLs in order; sources:
 * every `web_search_result` URL in order; fan-out: each `web_search` call's query; each once.
 *
 * Refused: `stop_reason` "refusal", or no text. A search that was rate limited
 * (`too_many_requests`) is rate_limited and a search service that was down (`unavailable`) is
 * server_error, both worth another try, when no search of the turn brought a result, answer text
 * or not: an answer written without the search it asked for is not the engine's grounded answer,
 * and would count brands it could not find as not mentioned. Any other search error
 * (max_uses_exceeded, query_too_long, ...) leaves an answer as it came, and without one ends as refused.
 */
export function captureFromContent(content: unknown[], stopReason: string | undefined, model: string): Capture {
  if (stopReason === 'refusal') throw new ProviderError('refused', 'Claude refused to answer (stop_reason "refusal")', { status: 200 });
  const runs: string[][] = [];
  let run: string[] | undefined;
  const cited: unknown[] = [];
  const sources: unknown[] = [];
  const queries: unknown[] = [];
  const searchErrors: string[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type !== 'text') run = undefined;
    if (block.type === 'text' && typeof block.text === 'string') {
      if (run === undefined) runs.push((run = []));
      run.push(block.text);
      for (const citation of listOf(block.citations)) if (isObject(citation) && citation.type === 'web_search_result_location') cited.push(citation.url);
    } else if (block.type === 'server_tool_use' && block.name === 'web_search') {
      queries.push(isObject(block.input) ? block.input.query : undefined);
    } else if (block.type === 'web_search_tool_result') {
      if (isObject(block.content) && block.content.type === 'web_search_tool_result_error') searchErrors.push(nonBlank(block.content.error_code) ?? 'unknown');
      for (const result of listOf(block.content)) if (isObject(result) && result.type === 'web_search_result') sources.push(result.url);
    }
  }
  const answer = runs
    .map((texts) => texts.join('').trim())
    .filter((text) => text !== '')
    .join('\n\n');
  const transient: ProviderFailure | undefined = searchErrors.includes('too_many_requests') ? 'rate_limited' : searchErrors.includes('unavailable') ? 'server_error' : undefined;
  const why = searchErrors.length > 0 ? ` (web search failed: ${uniqueInOrder(searchErrors).join(', ')})` : '';
  if (transient !== undefined && sources.length === 0) {
    throw new ProviderError(transient, `Claude's web search failed and found nothing${answer === '' ? ', and it returned no answer text' : ': the answer is not grounded'}${why}`, { status: 200 });
  }
  if (answer === '') throw new ProviderError('refused', `Claude returned no answer text${why}`, { status: 200 });
  return {
    outcome: 'ok',
    answer,
    citations: uniqueInOrder(cited.map(asString)),
    sources: uniqueInOrder(sources.map(asString)),
    fanOutQueries: uniqueInOrder(queries.map(asString)),
    ads: [],
    model,
    costUsd: null,
  };
}

async function check(query: CheckQuery, context: AdapterContext): Promise<Capture> {
  const { outbound, settings } = context;
  const deadline = Date.now() + settings.timeoutMs;
  const content: unknown[] = [];
  let reply: MessageReply | undefined;
  for (let round = 1; round <= MAX_ROUNDS; round += 1) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new ProviderError('timeout', `no reply within ${settings.timeoutMs} ms`);
    const body = await callProvider(
      outbound,
      {
        method: 'POST',
        url: `${settings.baseUrl}/v1/messages`,
        headers: { 'x-api-key': settings.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        body: anthropicRequestBody(query, settings.model, [...content]),
        timeoutMs: remaining,
      },
      classifyAnthropic,
    );
    reply = readMessageReply(body);
    content.push(...reply.content);
    if (reply.stopReason !== 'pause_turn') break;
  }
  // Still paused after MAX_ROUNDS: what text there is stands as the answer; none is refused.
  return captureFromContent(content, reply?.stopReason, reply?.model ?? settings.model);
}

export const anthropicAdapter: EngineAdapter = { provider: 'anthropic', surface: 'api', check };

