import type { Outbound } from '../../outbound/outbound.ts';
import { callProvider, errorMessage, uniqueInOrder, type ClassifyError } from './call-provider.ts';
import { placeOf } from './location.ts';
import { ProviderError, type AdapterContext, type Capture, type CheckQuery, type EngineAdapter } from './provider.ts';
import { type Json, isObject, listOf, nonBlank } from './read-json.ts';

/**
 * The `gemini` engine: the Gemini Developer API's `generateContent` with the `google_search`
 * grounding tool (providers.md 1.3), `POST {base}/v1beta/models/{model}:generateContent`, the key in
 * `x-goog-api-key`.
 *
 * Location: the Developer API takes no country or place for Google Search grounding (its
 * `retrievalConfig.latLng` wants coordinates, which a prompt does not have), so a prompt's location
 * is stated in a system instruction, as peers do (providers.md 1.3). A country code is written as
 * its English name (Intl.DisplayNames: `US` -> "United States", `UK`/`GB` -> "United Kingdom"); any
 * other text as written. '' sends no instruction: Google's default.
 *
 * Grounding chunk URIs are Google redirects (`vertexaisearch.cloud.google.com/grounding-api-redirect/...`):
 * each distinct one is resolved once, without following, by reading its `Location`; one that cannot
 * be resolved is kept as given. Citations are the chunks the answer's grounding supports name, in
 * order of first reference; sources are every chunk, in order; both after resolving, each once.
 *
 * Gemini reports no price: costUsd is null. The API always answers a question, so there is no
 * `no_answer`: a reply without an answer is refused or malformed.
 */

/** Stops that withhold the answer for policy reasons: the text, if any, is not the engine's answer. */
const REFUSING_FINISH = new Set(['SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY']);

/**
 * A 429 RESOURCE_EXHAUSTED is a rate limit, even when its message says "You exceeded your current
 * quota, please check your plan and billing details": Google sends that same text for per-minute and
 * per-day tier limits, which pass with time. Only messages that name money run out are quota:
 * prepaid credits depleted, or billing that must be enabled (at any status).
 */
const BILLING = /prepayment credits|credits are depleted|enable billing/i;

/** Resolving redirects: a few at a time, each briefly, within the check's budget. */
const REDIRECT_CONCURRENCY = 4;
const REDIRECT_TIMEOUT_MS = 3_000;

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** The system instruction that carries a prompt's location; undefined for ''. */
export function locationInstruction(location: string): string | undefined {
  const { country, place } = placeOf(location);
  let where = place;
  if (country !== undefined) {
    const name = REGION_NAMES.of(country);
    where = name === undefined || name === 'Unknown Region' ? country : name;
  }
  if (where === undefined) return undefined;
  return `The user is in ${where}. Answer for a user located there: search for, and prefer, information relevant to that location.`;
}

export function geminiRequestBody(query: CheckQuery): Json {
  const instruction = locationInstruction(query.location);
  return {
    contents: [{ role: 'user', parts: [{ text: query.prompt }] }],
    tools: [{ google_search: {} }],
    ...(instruction === undefined ? {} : { systemInstruction: { parts: [{ text: instruction }] } }),
  };
}

/** What a reply says, before its redirect URIs are resolved. */
export interface GeminiReading {
  answer: string;
  /** Chunk URIs the grounding supports name, in order of first reference, each once (as given). */
  citedUris: string[];
  /** Every web chunk's URI, in order, each once (as given). */
  sourceUris: string[];
  fanOutQueries: string[];
  model: string;
}

/**
 * A 200 reply read as documented (genai `GenerateContentResponse`): the first candidate's text parts
 * (thought summaries left out), its grounding metadata, `modelVersion`. A blocked prompt (no
 * candidates, `promptFeedback.blockReason`), a policy stop or an empty text is refused; a body
 * without candidates or a block reason is malformed.
 */
export function readGeminiReply(body: unknown, fallbackModel: string): GeminiReading {
  if (!isObject(body)) throw malformed('the reply is not a JSON object');
  const model = nonBlank(body.modelVersion) ?? fallbackModel;
  if (body.candidates !== undefined && !Array.isArray(body.candidates)) throw malformed('`candidates` is not a list');
  const candidate: unknown = listOf(body.candidates)[0];
  if (candidate === undefined) {
    const feedback = body.promptFeedback;
    const blockReason = isObject(feedback) ? nonBlank(feedback.blockReason) : undefined;
    if (blockReason !== undefined) throw refused(`Gemini blocked the prompt (${blockReason})`);
    throw malformed('the reply has no candidates');
  }
  if (!isObject(candidate)) throw malformed('`candidates[0]` is not an object');
  const finishReason = nonBlank(candidate.finishReason);
  if (finishReason !== undefined && REFUSING_FINISH.has(finishReason)) throw refused(`Gemini stopped the answer (${finishReason})`);

  const content = candidate.content ?? {};
  if (!isObject(content)) throw malformed('`candidates[0].content` is not an object');
  if (content.parts !== undefined && !Array.isArray(content.parts)) throw malformed('`candidates[0].content.parts` is not a list');
  const answer = listOf(content.parts)
    .filter((part): part is Json => isObject(part) && part.thought !== true && typeof part.text === 'string')
    .map((part) => part.text as string)
    .join('')
    .trim();
  if (answer === '') throw refused(`Gemini returned no answer text${finishReason ? ` (finishReason ${finishReason})` : ''}`);

  const grounding = isObject(candidate.groundingMetadata) ? candidate.groundingMetadata : {};
  const chunks = listOf(grounding.groundingChunks).map((chunk) => (isObject(chunk) && isObject(chunk.web) ? nonBlank(chunk.web.uri) : undefined));
  const cited = listOf(grounding.groundingSupports).flatMap((support) =>
    isObject(support) ? listOf(support.groundingChunkIndices).map((index) => (Number.isInteger(index) ? chunks[index as number] : undefined)) : [],
  );
  return {
    answer,
    citedUris: uniqueInOrder(cited),
    sourceUris: uniqueInOrder(chunks),
    fanOutQueries: uniqueInOrder(listOf(grounding.webSearchQueries).map((q) => (typeof q === 'string' ? q : undefined))),
    model,
  };
}

/** Google's grounding redirects, by path, so a fake (or a regional host) with the same path is resolved too. */
export function isGroundingRedirect(uri: string): boolean {
  try {
    const url = new URL(uri);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.pathname.startsWith('/grounding-api-redirect/');
  } catch {
    return false;
  }
}

/**
 * Where each distinct redirect URI points: one non-following GET through the guarded client (so a
 * redirect host that resolves to a private address is refused), its `Location` read. A URI that
 * fails, answers without a Location, or points at something not http(s) maps to itself. No request
 * starts after the deadline.
 */
export async function resolveRedirects(uris: readonly string[], outbound: Outbound, deadline: number): Promise<Map<string, string>> {
  const resolved = new Map<string, string>();
  const pending = uniqueInOrder(uris).filter(isGroundingRedirect);
  const worker = async (): Promise<void> => {
    for (let uri = pending.shift(); uri !== undefined; uri = pending.shift()) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return;
      const target = await redirectTarget(uri, outbound, Math.min(REDIRECT_TIMEOUT_MS, remaining));
      if (target !== undefined) resolved.set(uri, target);
    }
  };
  await Promise.all(Array.from({ length: Math.min(REDIRECT_CONCURRENCY, pending.length) }, worker));
  return resolved;
}

async function redirectTarget(uri: string, outbound: Outbound, timeoutMs: number): Promise<string | undefined> {
  try {
    const response = await outbound.request(uri, { method: 'GET', maxRedirects: 0, timeoutMs, maxBytes: 16 * 1024 });
    const location = response.status >= 300 && response.status < 400 ? response.headers.location : undefined;
    if (location === undefined) return undefined;
    const target = new URL(location, uri);
    return target.protocol === 'https:' || target.protocol === 'http:' ? target.href : undefined;
  } catch {
    return undefined; // kept as given: the capture matters more than one link's final form
  }
}

/**
 * Gemini's errors are `{error:{code,message,status,details}}`. Beyond the generic mapping: money run
 * out is quota (see BILLING); a key Google rejects comes as 400 INVALID_ARGUMENT with reason
 * API_KEY_INVALID, which is auth.
 */
const classifyGemini: ClassifyError = (_status, body) => {
  if (BILLING.test(errorMessage(body) ?? '')) return 'quota';
  if (errorReasons(body).includes('API_KEY_INVALID')) return 'auth';
  return undefined;
};

function errorReasons(body: unknown): string[] {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error)) return [];
  return listOf(error.details).flatMap((detail) => (isObject(detail) && typeof detail.reason === 'string' ? [detail.reason] : []));
}

/** A 429's `google.rpc.RetryInfo` delay ("44s", "0.5s"), Google's way of saying retry-after. */
export function retryInfoMs(body: unknown): number | undefined {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error)) return undefined;
  for (const detail of listOf(error.details)) {
    if (!isObject(detail) || typeof detail['@type'] !== 'string' || !detail['@type'].endsWith('google.rpc.RetryInfo')) continue;
    const match = typeof detail.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay) : null;
    if (match) return Math.min(Math.round(Number(match[1]) * 1000), 3_600_000);
  }
  return undefined;
}

async function check(query: CheckQuery, context: AdapterContext): Promise<Capture> {
  const { outbound, settings } = context;
  const deadline = Date.now() + settings.timeoutMs;
  let errorBody: unknown;
  let body: unknown;
  try {
    body = await callProvider(
      outbound,
      {
        method: 'POST',
        url: `${settings.baseUrl}/v1beta/models/${encodeURIComponent(settings.model)}:generateContent`,
        headers: { 'x-goog-api-key': settings.apiKey },
        body: geminiRequestBody(query),
        timeoutMs: settings.timeoutMs,
      },
      (status, reply) => {
        errorBody = reply; // kept for its RetryInfo, which callProvider does not read
        return classifyGemini(status, reply);
      },
    );
  } catch (error) {
    const delay = error instanceof ProviderError && error.failure === 'rate_limited' && error.retryAfterMs === undefined ? retryInfoMs(errorBody) : undefined;
    if (delay !== undefined && error instanceof ProviderError) throw new ProviderError(error.failure, error.message, { status: error.status, retryAfterMs: delay });
    throw error;
  }
  const reading = readGeminiReply(body, settings.model);
  const resolved = await resolveRedirects([...reading.citedUris, ...reading.sourceUris], outbound, deadline);
  const final = (uri: string) => resolved.get(uri) ?? uri;
  return {
    outcome: 'ok',
    answer: reading.answer,
    citations: uniqueInOrder(reading.citedUris.map(final)),
    sources: uniqueInOrder(reading.sourceUris.map(final)),
    fanOutQueries: reading.fanOutQueries,
    ads: [],
    model: reading.model,
    costUsd: null,
  };
}

export const geminiAdapter: EngineAdapter = { provider: 'gemini', surface: 'api', check };

function malformed(message: string): ProviderError {
  return new ProviderError('malformed', message, { status: 200 });
}

function refused(message: string): ProviderError {
  return new ProviderError('refused', message, { status: 200 });
}

