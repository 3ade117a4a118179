import { callProvider, errorMessage, uniqueInOrder, type ClassifyError } from './call-provider.ts';
import { placeOf } from './location.ts';
import { ProviderError, type AdapterContext, type Capture, type CheckQuery, type EngineAdapter } from './provider.ts';
import { type Json, asString, isObject, listOf, nonBlank } from './read-json.ts';

/**
 * The `perplexity` engine: Perplexity Sonar chat completions (providers.md 1.2),
 * `POST {base}/chat/completions`, the key as a bearer token. Sonar searches the web by itself; no
 * tool is named.
 *
 * Location: a country code goes in `web_search_options.user_location.country` (ISO alpha-2, `UK`
 * sent as `GB`). Any other text is not split into Perplexity's `city`/`region`/`country` fields
 * (a guess at which part is which could place the search wrongly); it is said in a system message,
 * "The user is in Berlin, Germany.", a statement of where the asker is, as a located user's search
 * would carry, not an instruction on what to answer. '' sends neither: Perplexity's default.
 *
 * Reading the reply: the answer is `choices[0].message.content`, any leading `<think>` block of the
 * reasoning models left out. The `[n]` markers in it refer to `search_results[n-1]`, so the
 * citations are the `search_results` URLs in order (the legacy `citations` list when there are
 * none). Perplexity does not report retrieved pages apart from those it lists, so the sources are
 * the same list; nor the searches it ran (only `usage.num_search_queries`, a count), so there are
 * no fan-out queries. The model is the reply's `model`.
 *
 * Cost: Perplexity reports the call's price in `usage.cost.total_cost` (USD); costUsd is that, or
 * null when absent. The API always answers, so there is no `no_answer`: a reply without text is refused.
 */

/**
 * Money run out: a 402 (the generic mapping), or an OpenAI-style `insufficient_quota` or a message
 * about credits at any status. Perplexity does not document its out-of-credits reply; these are
 * the shapes OpenAI-compatible APIs use.
 */
const BILLING_MESSAGE = /insufficient (credit|quota|balance|funds)|credit balance|out of credits/i;

const classifyPerplexity: ClassifyError = (_status, body) => {
  const error = isObject(body) && isObject(body.error) ? body.error : {};
  if (error.type === 'insufficient_quota' || error.code === 'insufficient_quota' || BILLING_MESSAGE.test(errorMessage(body) ?? '')) return 'quota';
  return undefined;
};

export function perplexityRequestBody(query: CheckQuery, model: string): Json {
  const { country, place } = placeOf(query.location);
  const messages: Json[] = [];
  if (place !== undefined) messages.push({ role: 'system', content: `The user is in ${place}.` });
  messages.push({ role: 'user', content: query.prompt });
  return { model, messages, ...(country === undefined ? {} : { web_search_options: { user_location: { country } } }) };
}

/** The reasoning models (sonar-reasoning-pro) put their thinking first, in `<think>...</think>`. */
const THINKING = /^\s*<think>[\s\S]*?<\/think>/;

/**
 * A 200 reply read as documented (@perplexity-ai/perplexity_ai `CompletionResponseOutput`). No
 * `choices[0].message`, or content that is not text: malformed. Stopped by the content filter, or
 * no text: refused.
 */
export function parsePerplexityResponse(body: unknown, fallbackModel: string): Capture {
  if (!isObject(body)) throw new ProviderError('malformed', 'the reply is not a JSON object', { status: 200 });
  const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObject(choice) || !isObject(choice.message)) throw new ProviderError('malformed', 'the reply has no `choices[0].message`', { status: 200 });
  const content = choice.message.content ?? '';
  if (typeof content !== 'string') throw new ProviderError('malformed', '`choices[0].message.content` is not text', { status: 200 });
  if (choice.finish_reason === 'content_filter') throw new ProviderError('refused', 'the answer was stopped by the content filter', { status: 200 });
  const answer = content.replace(THINKING, '').trim();
  if (answer === '') throw new ProviderError('refused', 'the reply has no answer text', { status: 200 });

  let listed = uniqueInOrder(listOf(body.search_results).map((result) => (isObject(result) ? asString(result.url) : undefined)));
  if (listed.length === 0) listed = uniqueInOrder(listOf(body.citations).map(asString));
  const usage = isObject(body.usage) ? body.usage : {};
  const total = isObject(usage.cost) ? usage.cost.total_cost : undefined;
  return {
    outcome: 'ok',
    answer,
    citations: listed,
    sources: [...listed],
    fanOutQueries: [],
    ads: [],
    model: nonBlank(body.model) ?? fallbackModel,
    costUsd: typeof total === 'number' && Number.isFinite(total) && total >= 0 ? total : null,
  };
}

async function check(query: CheckQuery, context: AdapterContext): Promise<Capture> {
  const { outbound, settings } = context;
  const body = await callProvider(
    outbound,
    {
      method: 'POST',
      url: `${settings.baseUrl}/chat/completions`,
      headers: { authorization: `Bearer ${settings.apiKey}` },
      body: perplexityRequestBody(query, settings.model),
      timeoutMs: settings.timeoutMs,
    },
    classifyPerplexity,
  );
  return parsePerplexityResponse(body, settings.model);
}

export const perplexityAdapter: EngineAdapter = { provider: 'perplexity', surface: 'api', check };
