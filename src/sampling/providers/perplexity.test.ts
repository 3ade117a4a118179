import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProviderError, useFakeProvider, type FakeReply } from '../../../test/fakes/fake-provider.ts';
import { perplexityAdapter } from './perplexity.ts';
import type { AdapterContext, ProviderError, ProviderSettings } from './provider.ts';

const KEY = 'pplx-test-0123';
const MODEL = 'sonar';

const { fake, outbound } = useFakeProvider('perplexity.test');

function context(overrides: Partial<ProviderSettings> = {}): AdapterContext {
  return { outbound, settings: { engine: 'perplexity', provider: 'perplexity', surface: 'api', apiKey: KEY, baseUrl: fake.origin, model: MODEL, timeoutMs: 3000, ...overrides } };
}

function check(location = '', overrides: Partial<ProviderSettings> = {}) {
  return perplexityAdapter.check({ prompt: 'best crm for startups', location }, context(overrides));
}

const result = (url: string) => ({ title: `Title of ${url}`, url, date: '2025-03-01', last_updated: '2025-10-02', snippet: 'HubSpot CRM is free...', source: 'web' });

/** A Sonar reply shaped like the chat completions reference: content with [n] markers, search_results, usage with its cost. */
const completion = (content: unknown, extra: Record<string, unknown> = {}, finish_reason = 'stop') => ({
  id: '3c90c3cc-0d44-4b50-8888-8dd25736052a',
  model: 'sonar',
  created: 1763929624,
  object: 'chat.completion',
  choices: [{ index: 0, finish_reason, message: { role: 'assistant', content } }],
  usage: {
    prompt_tokens: 12,
    completion_tokens: 310,
    total_tokens: 322,
    search_context_size: 'low',
    cost: { input_tokens_cost: 0.000012, output_tokens_cost: 0.00031, request_cost: 0.005, total_cost: 0.005322 },
  },
  ...extra,
});

const RESULTS = [
  'https://zapier.com/blog/best-crm-app/',
  'https://www.hubspot.com/crm',
  'https://www.pipedrive.com/',
  'https://www.hubspot.com/crm', // listed twice by the engine: kept once
  'https://attio.com/',
];
const ANSWER = 'HubSpot is the usual first CRM for startups because its free tier covers contacts and deals [1][2]. Pipedrive suits teams that sell through a visual pipeline [3].';

describe('the request', () => {
  const LOCATIONS: [string, Record<string, unknown>][] = [
    ['', { messages: [{ role: 'user', content: 'best crm for startups' }] }],
    ['US', { messages: [{ role: 'user', content: 'best crm for startups' }], web_search_options: { user_location: { country: 'US' } } }],
    ['UK', { messages: [{ role: 'user', content: 'best crm for startups' }], web_search_options: { user_location: { country: 'GB' } } }],
    ['de', { messages: [{ role: 'user', content: 'best crm for startups' }], web_search_options: { user_location: { country: 'DE' } } }],
    [
      'Berlin, Germany',
      {
        messages: [
          { role: 'system', content: 'The user is in Berlin, Germany.' },
          { role: 'user', content: 'best crm for startups' },
        ],
      },
    ],
  ];
  for (const [location, expected] of LOCATIONS) {
    test(`chat completions, location ${JSON.stringify(location)}`, async () => {
      fake.replies.push({ json: completion('An answer.') });
      await check(location);
      assert.equal(fake.requests.length, 1);
      const request = fake.requests[0]!;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/chat/completions');
      assert.equal(request.headers.authorization, `Bearer ${KEY}`);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.deepEqual(request.body, { model: MODEL, ...expected });
    });
  }
});

describe('an answer', () => {
  test('text, citations from search_results in order once, the same list as sources, the model, the reported cost', async () => {
    fake.replies.push({ json: completion(ANSWER, { search_results: RESULTS.map(result), citations: RESULTS }) });
    const capture = await check('US');
    const listed = ['https://zapier.com/blog/best-crm-app/', 'https://www.hubspot.com/crm', 'https://www.pipedrive.com/', 'https://attio.com/'];
    assert.deepEqual(capture, { outcome: 'ok', answer: ANSWER, citations: listed, sources: listed, fanOutQueries: [], ads: [], model: 'sonar', costUsd: 0.005322 });
  });

  test('search_results are preferred to the legacy citations', async () => {
    fake.replies.push({ json: completion(ANSWER, { search_results: [result('https://a.example/'), result('https://b.example/')], citations: ['https://legacy.example/'] }) });
    const capture = await check();
    assert.deepEqual(capture.outcome === 'ok' && capture.citations, ['https://a.example/', 'https://b.example/']);
  });

  test('only the legacy citations: they are the citations and sources', async () => {
    fake.replies.push({ json: completion(ANSWER, { citations: ['https://www.hubspot.com/crm', 'https://www.pipedrive.com/', 'https://www.hubspot.com/crm'] }) });
    const capture = await check();
    assert.equal(capture.outcome, 'ok');
    if (capture.outcome !== 'ok') return;
    assert.deepEqual(capture.citations, ['https://www.hubspot.com/crm', 'https://www.pipedrive.com/']);
    assert.deepEqual(capture.sources, ['https://www.hubspot.com/crm', 'https://www.pipedrive.com/']);
  });

  test('no cost reported: costUsd is null; no model: the one asked for', async () => {
    const reply: Record<string, unknown> = completion(ANSWER, { usage: { prompt_tokens: 12, completion_tokens: 310, total_tokens: 322 } });
    delete reply.model;
    fake.replies.push({ json: reply });
    const capture = await check();
    assert.equal(capture.costUsd, null);
    assert.equal(capture.model, MODEL);
  });

  test("a reasoning model's <think> block is not part of the answer", async () => {
    fake.replies.push({ json: completion('<think>\nThe user wants CRM options; HubSpot appears in [1].\n</think>\n\nHubSpot [1].', { model: 'sonar-reasoning-pro', search_results: [result('https://www.hubspot.com/crm')] }) });
    const capture = await check('', { model: 'sonar-reasoning-pro' });
    assert.equal(capture.outcome === 'ok' && capture.answer, 'HubSpot [1].');
    assert.equal(capture.model, 'sonar-reasoning-pro');
  });
});

describe('failures', () => {
  const apiError = (message: string, type: string, code: number | string) => ({ error: { message, type, code } });
  const cases: { name: string; reply: FakeReply; failure: ProviderError['failure']; retryable: boolean; retryAfterMs?: number; timeoutMs?: number }[] = [
    { name: '429 with retry-after', reply: { status: 429, headers: { 'retry-after': '3' }, json: apiError('Rate limit exceeded', 'rate_limit_error', 429) }, failure: 'rate_limited', retryable: true, retryAfterMs: 3_000 },
    { name: '429 without retry-after', reply: { status: 429, json: apiError('Rate limit exceeded', 'rate_limit_error', 429) }, failure: 'rate_limited', retryable: true },
    { name: '402 out of credits', reply: { status: 402, json: apiError('Insufficient credits. Add credits in the API portal.', 'payment_required', 402) }, failure: 'quota', retryable: false },
    { name: '429 insufficient_quota', reply: { status: 429, json: apiError('You exceeded your current quota.', 'insufficient_quota', 'insufficient_quota') }, failure: 'quota', retryable: false },
    { name: '500', reply: { status: 500, json: apiError('Internal server error', 'internal_server_error', 500) }, failure: 'server_error', retryable: true },
    { name: '503', reply: { status: 503, text: '<html><body>503 Service Temporarily Unavailable</body></html>' }, failure: 'server_error', retryable: true },
    { name: '401', reply: { status: 401, json: apiError('Invalid API key', 'authentication_error', 401) }, failure: 'auth', retryable: false },
    { name: '400 invalid model', reply: { status: 400, json: apiError("Invalid model 'gpt-4'. Permitted models can be found in the documentation.", 'invalid_model', 400) }, failure: 'bad_request', retryable: false },
    { name: 'a hang past timeoutMs', reply: 'hang', failure: 'timeout', retryable: true, timeoutMs: 300 },
    { name: 'a reset connection', reply: 'reset', failure: 'network', retryable: true },
    { name: '200 that is not JSON', reply: { text: 'data: {"id":"1"}' }, failure: 'malformed', retryable: false },
    { name: '200 without choices', reply: { json: { id: '1', model: 'sonar', object: 'chat.completion' } }, failure: 'malformed', retryable: false },
    { name: '200 with no choice', reply: { json: completion('x', { choices: [] }) }, failure: 'malformed', retryable: false },
    { name: '200 with content that is not text', reply: { json: completion({ text: 'HubSpot' }) }, failure: 'malformed', retryable: false },
    { name: 'an empty answer', reply: { json: completion(' \n', { search_results: [result('https://a.example/')] }) }, failure: 'refused', retryable: false },
    { name: 'a null content', reply: { json: completion(null) }, failure: 'refused', retryable: false },
    { name: 'only thinking', reply: { json: completion('<think>Let me search.</think>') }, failure: 'refused', retryable: false },
    { name: 'stopped by the content filter', reply: { json: completion('HubSpot is', {}, 'content_filter') }, failure: 'refused', retryable: false },
  ];

  for (const c of cases) {
    test(`${c.name} -> ${c.failure}`, async () => {
      fake.replies.push(c.reply);
      const started = Date.now();
      const e = await expectProviderError(check('', c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}));
      assert.equal(e.failure, c.failure, e.message);
      assert.equal(e.retryable, c.retryable);
      assert.equal(e.retryAfterMs, c.retryAfterMs);
      if (c.timeoutMs) assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
      assert.equal(fake.requests.length, 1, 'never retried inside the adapter');
    });
  }

  test("the provider's message is kept", async () => {
    fake.replies.push({ status: 400, json: apiError("Invalid model 'gpt-4'. Permitted models can be found in the documentation.", 'invalid_model', 400) });
    assert.match((await expectProviderError(check())).message, /Invalid model 'gpt-4'/);
  });
});
