import { callProvider, uniqueInOrder, type ClassifyError } from './call-provider.ts';
import { placeOf } from './location.ts';
import { ProviderError, type AdapterContext, type Capture, type CheckQuery, type EngineAdapter, type ProviderFailure } from './provider.ts';
import { type Json, asString, isObject, listOf, nonBlank } from './read-json.ts';

/**
 * The `chatgpt` engine: the OpenAI Responses API with the `web_search` tool (providers.md 1.1),
 * `POST {base}/responses` (the base URL already ends in `/v1`), the key as a bearer token, and
 * `include: ["web_search_call.action.sources"]` so the reply lists the pages the search retrieved.
 *
 * Location: the tool's `user_location` (type `approximate`): a country code as `country` (ISO
 * alpha-2, `UK` sent as `GB`), any other text as `city`, as written ("Berlin, Germany"). '' sends
 * none, and OpenAI's search then defaults to the United States (openai-node `WebSearchTool`).
 * Whether to search is left to the model, as in ChatGPT: an answer without a search has no citations.
 *
 * Reading the reply: the answer is the `output_text` parts of the `message` items; the citations are
 * their `url_citation` annotations, in order; the sources are every `web_search_call`'s
 * `action.sources[].url` (a `search`) or `action.url` (an `open_page` or `find_in_page`: a page
 * the model loaded); the fan-out queries are `action.query` and `action.queries`. The model is
 * `response.model`.
 *
 * Cost: the reply reports tokens (`usage`) and, by its `web_search_call` items, the searches run,
 * but no price, so costUsd is null. The API always answers a question, so there is no `no_answer`:
 * a reply without text is refused.
 */

/** Money run out, whatever the status (a 429 with these is not a rate limit: waiting does not help). */
const QUOTA_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_not_active']);

const classifyOpenAi: ClassifyError = (_status, body) => {
  const error = isObject(body) && isObject(body.error) ? body.error : {};
  if (QUOTA_CODES.has(asString(error.code) ?? '') || QUOTA_CODES.has(asString(error.type) ?? '')) return 'quota';
  return undefined;
};

export function webSearchTool(location: string): Json {
  const { country, place } = placeOf(location);
  if (country !== undefined) return { type: 'web_search', user_location: { type: 'approximate', country } };
  if (place !== undefined) return { type: 'web_search', user_location: { type: 'approximate', city: place } };
  return { type: 'web_search' };
}

export function openAiRequestBody(query: CheckQuery, model: string): Json {
  // store: false: OpenAI keeps no copy of the question and answer (we keep ours).
  return { model, input: query.prompt, tools: [webSearchTool(query.location)], include: ['web_search_call.action.sources'], store: false };
}

/**
 * A response that failed at OpenAI although the HTTP exchange succeeded (`status: "failed"`, or an
 * `error` object in a 200): `ResponseError.code` says whether trying again can help. The other
 * documented codes (`invalid_prompt`, the image ones) are about the input: not retried. A failure
 * that gives no code is taken as OpenAI's own, worth another try.
 */
function failedResponseError(error: Json): ProviderError {
  const code = nonBlank(error.code);
  let failure: ProviderFailure = 'bad_request';
  if (code === undefined || code === 'server_error' || code === 'vector_store_timeout') failure = 'server_error';
  else if (code === 'rate_limit_exceeded') failure = 'rate_limited';
  else if (QUOTA_CODES.has(code)) failure = 'quota';
  return new ProviderError(failure, `the response failed (${code ?? 'no code'}): ${nonBlank(error.message) ?? 'no message'}`, { status: 200 });
}

/** Statuses that are not a finished response; only a `background` request (never sent) should see them. */
const UNFINISHED = new Set(['queued', 'in_progress', 'cancelled']);

/**
 * A 200 reply read as documented (openai-node `Response`). Messages are joined by a blank line,
 * the text parts of one message as they are. Stopped by the content filter, or no text (an empty
 * answer, a `refusal` part, output cut off by the token limit before any text): refused. A text
 * cut off by the token limit (`incomplete`, `max_output_tokens`) is still the answer.
 */
export function parseOpenAiResponse(body: unknown, fallbackModel: string): Capture {
  if (!isObject(body)) throw new ProviderError('malformed', 'the reply is not a JSON object', { status: 200 });
  if (isObject(body.error)) throw failedResponseError(body.error);
  if (body.status === 'failed') throw failedResponseError({});
  if (!Array.isArray(body.output)) throw new ProviderError('malformed', 'the reply has no `output` list', { status: 200 });
  const status = asString(body.status);
  if (status !== undefined && UNFINISHED.has(status)) throw new ProviderError('malformed', `the response is ${status}, not completed`, { status: 200 });
  const incompleteReason = body.status === 'incomplete' && isObject(body.incomplete_details) ? nonBlank(body.incomplete_details.reason) : undefined;
  if (incompleteReason === 'content_filter') throw new ProviderError('refused', 'the answer was stopped by the content filter (incomplete: content_filter)', { status: 200 });

  const texts: string[] = [];
  const refusals: string[] = [];
  const cited: unknown[] = [];
  const sources: unknown[] = [];
  const queries: unknown[] = [];
  for (const item of body.output) {
    if (!isObject(item)) continue;
    if (item.type === 'message') {
      let text = '';
      for (const part of listOf(item.content)) {
        if (!isObject(part)) continue;
        if (part.type === 'output_text' && typeof part.text === 'string') {
          text += part.text;
          for (const note of listOf(part.annotations)) if (isObject(note) && note.type === 'url_citation') cited.push(note.url);
        } else if (part.type === 'refusal') {
          refusals.push(nonBlank(part.refusal) ?? 'refused');
        }
      }
      if (text.trim() !== '') texts.push(text.trim());
    } else if (item.type === 'web_search_call' && isObject(item.action)) {
      const action = item.action;
      queries.push(action.query, ...listOf(action.queries));
      for (const source of listOf(action.sources)) if (isObject(source)) sources.push(source.url);
      if (action.type === 'open_page' || action.type === 'find_in_page') sources.push(action.url);
    }
  }
  const answer = texts.join('\n\n');
  if (answer === '') {
    if (refusals.length > 0) throw new ProviderError('refused', `the model refused: ${refusals.join(' ')}`, { status: 200 });
    const why = incompleteReason !== undefined ? ` (incomplete: ${incompleteReason})` : '';
    throw new ProviderError('refused', `the reply has no answer text${why}`, { status: 200 });
  }
  return {
    outcome: 'ok',
    answer,
    citations: uniqueInOrder(cited.map(asString)),
    sources: uniqueInOrder(sources.map(asString)),
    fanOutQueries: uniqueInOrder(queries.map(asString)),
    ads: [],
    model: nonBlank(body.model) ?? fallbackModel,
    costUsd: null,
  };
}

async function check(query: CheckQuery, context: AdapterContext): Promise<Capture> {
  const { outbound, settings } = context;
  const body = await callProvider(
    outbound,
    {
      method: 'POST',
      url: `${settings.baseUrl}/responses`,
      headers: { authorization: `Bearer ${settings.apiKey}` },
      body: openAiRequestBody(query, settings.model),
      timeoutMs: settings.timeoutMs,
    },
    classifyOpenAi,
  );
  return parseOpenAiResponse(body, settings.model);
}

export const openaiAdapter: EngineAdapter = { provider: 'openai', surface: 'api', check };
