import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProviderError, useFakeProvider, type FakeReply } from '../../../test/fakes/fake-provider.ts';
import { openaiAdapter } from './openai.ts';
import type { AdapterContext, ProviderError, ProviderSettings } from './provider.ts';

const KEY = 'sk-proj-test-0123';
const MODEL = 'gpt-5-mini';

const { fake, outbound } = useFakeProvider('openai.test');

function context(overrides: Partial<ProviderSettings> = {}): AdapterContext {
  // The configured OpenAI base URL ends in /v1 (operations.md section 6).
  return { outbound, settings: { engine: 'chatgpt', provider: 'openai', surface: 'api', apiKey: KEY, baseUrl: `${fake.origin}/v1`, model: MODEL, timeoutMs: 3000, ...overrides } };
}

function check(location = '', overrides: Partial<ProviderSettings> = {}) {
  return openaiAdapter.check({ prompt: 'best crm for startups', location }, context(overrides));
}

type Item = Record<string, unknown>;

const response = (output: Item[], extra: Record<string, unknown> = {}) => ({
  id: 'resp_68b65c4ed0488190a0bd21a6fff1991108cd5796c3342f15',
  object: 'response',
  created_at: 1763929624,
  status: 'completed',
  error: null,
  incomplete_details: null,
  model: 'gpt-5-mini-2025-08-07',
  output,
  tools: [{ type: 'web_search', search_context_size: 'medium', user_location: { type: 'approximate', country: 'US' } }],
  usage: { input_tokens: 8512, output_tokens: 684, total_tokens: 9196, output_tokens_details: { reasoning_tokens: 256 } },
  ...extra,
});

const url = (href: string) => ({ type: 'url', url: href });
const cite = (href: string, start: number, end: number) => ({ type: 'url_citation', start_index: start, end_index: end, url: href, title: `Title of ${href}` });
const text = (value: string, annotations: unknown[] = []) => ({ type: 'output_text', text: value, annotations, logprobs: [] });
const message = (content: unknown[]): Item => ({ type: 'message', id: 'msg_68b65c5082e48190a83636c52ee5de65', status: 'completed', role: 'assistant', content });

/** A reply shaped like the web search guide's example: reasoning, searches with their sources, a page opened, a cited message. */
const answerOutput: Item[] = [
  { type: 'reasoning', id: 'rs_68b65c4f87348190b80440b13861a94c', summary: [] },
  {
    type: 'web_search_call',
    id: 'ws_01',
    status: 'completed',
    action: {
      type: 'search',
      query: 'best crm for startups 2025',
      queries: ['best crm for startups 2025', 'hubspot vs pipedrive startups'],
      sources: [url('https://zapier.com/blog/best-crm-app/?utm_source=openai'), url('https://www.hubspot.com/crm'), url('https://www.pipedrive.com/')],
    },
  },
  { type: 'web_search_call', id: 'ws_02', status: 'completed', action: { type: 'open_page', url: 'https://www.pipedrive.com/en/pricing' } },
  { type: 'web_search_call', id: 'ws_03', status: 'completed', action: { type: 'find_in_page', url: 'https://www.hubspot.com/products/crm/free', pattern: 'free' } },
  { type: 'web_search_call', id: 'ws_04', status: 'completed', action: { type: 'search', query: 'attio crm review', sources: [url('https://attio.com/'), url('https://www.hubspot.com/crm')] } },
  message([
    text('HubSpot is the usual first CRM for startups: its free tier covers contacts and deals. ', [
      cite('https://www.hubspot.com/crm', 0, 40),
      cite('https://zapier.com/blog/best-crm-app/?utm_source=openai', 41, 80),
    ]),
    text('Pipedrive suits teams that sell through a visual pipeline.', [cite('https://www.pipedrive.com/en/pricing', 0, 57), cite('https://www.hubspot.com/crm', 0, 57), { type: 'file_citation', file_id: 'file-1', index: 3 }]),
  ]),
];

describe('the request', () => {
  const LOCATIONS: [string, Record<string, string> | undefined][] = [
    ['', undefined],
    ['US', { type: 'approximate', country: 'US' }],
    ['UK', { type: 'approximate', country: 'GB' }],
    ['de', { type: 'approximate', country: 'DE' }],
    ['Berlin, Germany', { type: 'approximate', city: 'Berlin, Germany' }],
  ];
  for (const [location, where] of LOCATIONS) {
    test(`responses with the web_search tool, location ${JSON.stringify(location)}`, async () => {
      fake.replies.push({ json: response([message([text('An answer.')])]) });
      await check(location);
      assert.equal(fake.requests.length, 1);
      const request = fake.requests[0]!;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/v1/responses');
      assert.equal(request.headers.authorization, `Bearer ${KEY}`);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.deepEqual(request.body, {
        model: MODEL,
        input: 'best crm for startups',
        tools: [{ type: 'web_search', ...(where ? { user_location: where } : {}) }],
        include: ['web_search_call.action.sources'],
        store: false,
      });
    });
  }
});

describe('an answer', () => {
  test('text, citations in order once, sources, fan-out queries, the model that answered, no cost', async () => {
    fake.replies.push({ json: response(answerOutput) });
    const capture = await check('US');
    assert.deepEqual(capture, {
      outcome: 'ok',
      answer: 'HubSpot is the usual first CRM for startups: its free tier covers contacts and deals. Pipedrive suits teams that sell through a visual pipeline.',
      citations: ['https://www.hubspot.com/crm', 'https://zapier.com/blog/best-crm-app/?utm_source=openai', 'https://www.pipedrive.com/en/pricing'],
      sources: ['https://zapier.com/blog/best-crm-app/?utm_source=openai', 'https://www.hubspot.com/crm', 'https://www.pipedrive.com/', 'https://www.pipedrive.com/en/pricing', 'https://www.hubspot.com/products/crm/free', 'https://attio.com/'],
      fanOutQueries: ['best crm for startups 2025', 'hubspot vs pipedrive startups', 'attio crm review'],
      ads: [],
      model: 'gpt-5-mini-2025-08-07',
      costUsd: null,
    });
  });

  test('an answer without a search has no citations, sources or queries', async () => {
    fake.replies.push({ json: response([{ type: 'reasoning', id: 'rs_1', summary: [] }, message([text('HubSpot, Pipedrive and Attio.')])]) });
    const capture = await check();
    assert.equal(capture.outcome, 'ok');
    if (capture.outcome !== 'ok') return;
    assert.equal(capture.answer, 'HubSpot, Pipedrive and Attio.');
    assert.deepEqual([capture.citations, capture.sources, capture.fanOutQueries], [[], [], []]);
  });

  test('several messages are joined by a blank line', async () => {
    fake.replies.push({ json: response([message([text('First part.')]), answerOutput[1]!, message([text(' Second part. ')])]) });
    const capture = await check();
    assert.equal(capture.outcome === 'ok' && capture.answer, 'First part.\n\nSecond part.');
  });

  test('a reply without a model names the one asked for', async () => {
    const reply: Record<string, unknown> = response([message([text('An answer.')])]);
    delete reply.model;
    fake.replies.push({ json: reply });
    assert.equal((await check()).model, MODEL);
  });

  test('a text cut off by max_output_tokens is still the answer', async () => {
    fake.replies.push({ json: response([message([text('A long answer that was cut')])], { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }) });
    const capture = await check();
    assert.equal(capture.outcome === 'ok' && capture.answer, 'A long answer that was cut');
  });
});

describe('failures', () => {
  const apiError = (message: string, type: string, code: string | null) => ({ error: { message, type, param: null, code } });
  const failed = (code: string | null, text = 'The model failed to produce a response.') => response([], { status: 'failed', error: code === null ? null : { code, message: text } });
  const cases: { name: string; reply: FakeReply; failure: ProviderError['failure']; retryable: boolean; retryAfterMs?: number; timeoutMs?: number }[] = [
    { name: '429 rate_limit_exceeded with retry-after', reply: { status: 429, headers: { 'retry-after': '7', 'x-ratelimit-remaining-requests': '0' }, json: apiError('Rate limit reached for gpt-5-mini in organization org-1 on requests per min (RPM): Limit 500, Used 500.', 'requests', 'rate_limit_exceeded') }, failure: 'rate_limited', retryable: true, retryAfterMs: 7_000 },
    { name: '429 with retry-after-ms', reply: { status: 429, headers: { 'retry-after-ms': '1500', 'retry-after': '2' }, json: apiError('Rate limit reached for gpt-5-mini on tokens per min (TPM).', 'tokens', 'rate_limit_exceeded') }, failure: 'rate_limited', retryable: true, retryAfterMs: 1_500 },
    { name: '429 insufficient_quota', reply: { status: 429, json: apiError('You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota') }, failure: 'quota', retryable: false },
    { name: '429 billing_hard_limit_reached', reply: { status: 429, json: apiError('Billing hard limit has been reached', 'invalid_request_error', 'billing_hard_limit_reached') }, failure: 'quota', retryable: false },
    { name: '400 billing_hard_limit_reached', reply: { status: 400, json: apiError('Billing hard limit has been reached', 'invalid_request_error', 'billing_hard_limit_reached') }, failure: 'quota', retryable: false },
    { name: '500', reply: { status: 500, json: apiError('The server had an error while processing your request. Sorry about that!', 'server_error', null) }, failure: 'server_error', retryable: true },
    { name: '503', reply: { status: 503, text: 'upstream connect error or disconnect/reset before headers' }, failure: 'server_error', retryable: true },
    { name: '401 invalid_api_key', reply: { status: 401, json: apiError('Incorrect API key provided: sk-proj-****0123.', 'invalid_request_error', 'invalid_api_key') }, failure: 'auth', retryable: false },
    { name: '403 unsupported region', reply: { status: 403, json: apiError('Country, region, or territory not supported', 'request_forbidden', 'unsupported_country_region_territory') }, failure: 'auth', retryable: false },
    { name: '400 unknown model', reply: { status: 400, json: apiError("The requested model 'gpt-9' does not exist.", 'invalid_request_error', 'model_not_found') }, failure: 'bad_request', retryable: false },
    { name: 'a hang past timeoutMs', reply: 'hang', failure: 'timeout', retryable: true, timeoutMs: 300 },
    { name: 'a reset connection', reply: 'reset', failure: 'network', retryable: true },
    { name: '200 that is not JSON', reply: { text: 'data: {"type":"response.created"}' }, failure: 'malformed', retryable: false },
    { name: '200 without output', reply: { json: { id: 'resp_1', object: 'response', status: 'completed', model: MODEL } }, failure: 'malformed', retryable: false },
    { name: '200 with output not a list', reply: { json: response([], { output: { type: 'message' } }) }, failure: 'malformed', retryable: false },
    { name: '200 still in_progress', reply: { json: response([], { status: 'in_progress' }) }, failure: 'malformed', retryable: false },
    { name: '200 failed: server_error', reply: { json: failed('server_error') }, failure: 'server_error', retryable: true },
    { name: '200 failed: rate_limit_exceeded', reply: { json: failed('rate_limit_exceeded', 'Rate limit exceeded.') }, failure: 'rate_limited', retryable: true },
    { name: '200 failed: invalid_prompt', reply: { json: failed('invalid_prompt', 'Invalid prompt: your prompt was flagged as potentially violating our usage policy.') }, failure: 'bad_request', retryable: false },
    { name: '200 failed without an error', reply: { json: failed(null) }, failure: 'server_error', retryable: true },
    { name: 'incomplete: content_filter', reply: { json: response([message([text('HubSpot is')])], { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }) }, failure: 'refused', retryable: false },
    { name: 'incomplete: max_output_tokens before any text', reply: { json: response([{ type: 'reasoning', id: 'rs_1', summary: [] }], { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }) }, failure: 'refused', retryable: false },
    { name: 'a refusal', reply: { json: response([message([{ type: 'refusal', refusal: "I'm sorry, I can't help with that." }])]) }, failure: 'refused', retryable: false },
    { name: 'an empty answer', reply: { json: response([answerOutput[1]!, message([text(' \n')])]) }, failure: 'refused', retryable: false },
  ];

  for (const c of cases) {
    test(`${c.name} -> ${c.failure}`, async () => {
      fake.replies.push(c.reply);
      const started = Date.now();
      const e = await expectProviderError(check('', c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}));
      assert.equal(e.failure, c.failure, e.message);
      assert.equal(e.retryable, c.retryable);
      if (c.retryAfterMs !== undefined) assert.equal(e.retryAfterMs, c.retryAfterMs);
      if (c.timeoutMs) assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
      assert.equal(fake.requests.length, 1, 'never retried inside the adapter');
    });
  }

  test("the provider's message is kept", async () => {
    fake.replies.push({ status: 429, json: apiError('You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota') });
    assert.match((await expectProviderError(check())).message, /exceeded your current quota/);
    fake.replies.push({ json: failed('invalid_prompt', 'Invalid prompt: flagged.') });
    assert.match((await expectProviderError(check())).message, /invalid_prompt.*flagged/);
    fake.replies.push({ json: response([message([{ type: 'refusal', refusal: "I can't help with that." }])]) });
    assert.match((await expectProviderError(check())).message, /can't help with that/);
  });
});
