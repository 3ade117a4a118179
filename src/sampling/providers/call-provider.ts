import { OutboundError, type Outbound } from '../../outbound/outbound.ts';
import { ProviderError, type ProviderFailure } from './provider.ts';

/** Replies larger than this are not read (an answer with its sources is far smaller). */
export const MAX_REPLY_BYTES = 8 * 1024 * 1024;

export interface ProviderCall {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** JSON-serialised for POST. */
  body?: unknown;
  timeoutMs: number;
}

/**
 * A provider's own reading of an error reply, before the generic one: e.g. OpenAI's 429 with
 * `insufficient_quota` is a quota failure, not a rate limit. Undefined: the generic mapping.
 */
export type ClassifyError = (status: number, body: unknown) => ProviderFailure | undefined;

/**
 * One request to a provider through the guarded client, its JSON reply returned, or a
 * ProviderError: 429 rate_limited (with retry-after or retry-after-ms), 5xx and 529 server_error,
 * 401/403 auth, 402 quota, other 4xx bad_request, a body that is not JSON malformed, the time cap
 * timeout, a failed connection network. The provider's message (error.message) is kept.
 */
export async function callProvider(outbound: Outbound, call: ProviderCall, classify?: ClassifyError): Promise<unknown> {
  let response;
  try {
    response = await outbound.request(call.url, {
      method: call.method,
      headers: call.method === 'POST' ? { 'content-type': 'application/json', accept: 'application/json', ...call.headers } : { accept: 'application/json', ...call.headers },
      ...(call.method === 'POST' ? { body: JSON.stringify(call.body ?? {}) } : {}),
      timeoutMs: call.timeoutMs,
      maxBytes: MAX_REPLY_BYTES,
    });
  } catch (error) {
    if (error instanceof OutboundError) {
      if (error.failure === 'timeout') throw new ProviderError('timeout', `no reply within ${call.timeoutMs} ms`);
      if (error.failure === 'blocked_address' || error.failure === 'bad_url') throw new ProviderError('bad_request', `the provider's address is refused: ${error.message}`);
      throw new ProviderError('network', error.message);
    }
    throw error;
  }
  const text = response.body.toString('utf8');
  let body: unknown;
  let parsed = true;
  try {
    body = JSON.parse(text);
  } catch {
    parsed = false;
  }
  const status = response.status;
  if (status >= 200 && status < 300) {
    if (response.truncated) throw new ProviderError('malformed', `the reply is larger than ${MAX_REPLY_BYTES} bytes`, { status });
    if (!parsed || body === null || typeof body !== 'object') throw new ProviderError('malformed', `the reply is not a JSON object: ${text.slice(0, 120)}`, { status });
    return body;
  }
  const message = `${status}: ${errorMessage(body) ?? text.slice(0, 200)}`;
  const failure = classify?.(status, body) ?? genericFailure(status);
  throw new ProviderError(failure, message, { status, retryAfterMs: failure === 'rate_limited' || failure === 'server_error' ? retryAfterMs(response.headers) : undefined });
}

function genericFailure(status: number): ProviderFailure {
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 403) return 'auth';
  if (status === 402) return 'quota';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server_error';
  return 'bad_request';
}

/** `error.message` in the shapes providers use: {error:{message}}, {error:"..."}, {message}. */
export function errorMessage(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
  const message = (body as { message?: unknown }).message;
  return typeof message === 'string' ? message : undefined;
}

/** `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date; capped at an hour. */
export function retryAfterMs(headers: Record<string, string>, now: number = Date.now()): number | undefined {
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return Math.min(ms, 3_600_000);
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 3_600_000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), 3_600_000);
}

/** Each string once, in first-seen order, blanks dropped. */
export function uniqueInOrder(values: Iterable<string | undefined | null>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values) {
    if (typeof v !== 'string' || v.trim() === '' || seen.has(v)) continue;
    seen.add(v);
    out.push(v);
  }
  return out;
}
