import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { expectProviderError, useFakeProvider, type FakeProvider, type FakeReply } from '../../../test/fakes/fake-provider.ts';
import { anthropicAdapter } from './anthropic.ts';
import { ProviderError, type AdapterContext, type ProviderSettings } from './provider.ts';

const KEY = 'sk-ant-test-0123';
const MODEL = 'claude-sonnet-4-5';

const { fake, outbound } = useFakeProvider('anthropic.test');

function context(overrides: Partial<ProviderSettings> = {}): AdapterContext {
  return { outbound, settings: { engine: 'claude', provider: 'anthropic', surface: 'api', apiKey: KEY, baseUrl: fake.origin, model: MODEL, timeoutMs: 3000, ...overrides } };
}

function check(location = '', overrides: Partial<ProviderSettings> = {}) {
  return anthropicAdapter.check({ prompt: 'best crm for startups', location }, context(overrides));
}

const failure = expectProviderError;

type Block = Record<string, unknown>;

const message = (content: Block[], stop_reason = 'end_turn', model = 'claude-sonnet-4-5-20250929') => ({
  id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
  type: 'message',
  role: 'assistant',
  model,
  content,
  stop_reason,
  stop_sequence: null,
  usage: { input_tokens: 6039, output_tokens: 931, server_tool_use: { web_search_requests: 2 } },
});

const search = (id: string, query: string): Block => ({ type: 'server_tool_use', id, name: 'web_search', input: { query } });
const results = (id: string, urls: string[]): Block => ({
  type: 'web_search_tool_result',
  tool_use_id: id,
  content: urls.map((url) => ({ type: 'web_search_result', url, title: `Title of ${url}`, encrypted_content: 'EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y', page_age: 'April 30, 2025' })),
});
const searchError = (id: string, error_code: string): Block => ({ type: 'web_search_tool_result', tool_use_id: id, content: { type: 'web_search_tool_result_error', error_code } });
const cite = (url: string) => ({ type: 'web_search_result_location', url, title: `Title of ${url}`, encrypted_index: 'Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm', cited_text: 'HubSpot CRM is free...' });

/** A reply shaped like the web search tool docs' example: narration, searches, results, then cited text in pieces. */
const answerBlocks: Block[] = [
  { type: 'text', text: "I'll search for current CRM recommendations." },
  search('srvtoolu_01', 'best crm for startups 2025'),
  results('srvtoolu_01', ['https://www.hubspot.com/crm', 'https://www.pipedrive.com/', 'https://zapier.com/blog/best-crm-app/']),
  search('srvtoolu_02', 'hubspot free crm limits'),
  results('srvtoolu_02', ['https://www.hubspot.com/pricing/crm', 'https://www.hubspot.com/crm']),
  { type: 'text', text: 'Based on the search results, ' },
  { type: 'text', text: 'HubSpot is the usual first CRM for startups because its free tier covers contacts and deals', citations: [cite('https://zapier.com/blog/best-crm-app/'), cite('https://www.hubspot.com/crm')] },
  { type: 'text', text: '. ' },
  { type: 'text', text: 'Pipedrive suits teams that sell through a visual pipeline', citations: [cite('https://www.pipedrive.com/'), cite('https://zapier.com/blog/best-crm-app/')] },
  { type: 'text', text: '.' },
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
    test(`messages with the web_search tool, location ${JSON.stringify(location)}`, async () => {
      fake.replies.push({ json: message([{ type: 'text', text: 'An answer.' }]) });
      await check(location);
      assert.equal(fake.requests.length, 1);
      const request = fake.requests[0]!;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/v1/messages');
      assert.equal(request.headers['x-api-key'], KEY);
      assert.equal(request.headers['anthropic-version'], '2023-06-01');
      assert.equal(request.headers.authorization, undefined);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.deepEqual(request.body, {
        model: MODEL,
        max_tokens: 2048,
        messages: [{ role: 'user', content: 'best crm for startups' }],
        tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5, ...(where ? { user_location: where } : {}) }],
      });
    });
  }
});

describe('an answer', () => {
  test('text in order, citations in order once, sources, fan-out queries, the model that answered', async () => {
    fake.replies.push({ json: message(answerBlocks) });
    const capture = await check('US');
    assert.deepEqual(capture, {
      outcome: 'ok',
      answer:
        "I'll search for current CRM recommendations.\n\nBased on the search results, HubSpot is the usual first CRM for startups because its free tier covers contacts and deals. Pipedrive suits teams that sell through a visual pipeline.",
      citations: ['https://zapier.com/blog/best-crm-app/', 'https://www.hubspot.com/crm', 'https://www.pipedrive.com/'],
      sources: ['https://www.hubspot.com/crm', 'https://www.pipedrive.com/', 'https://zapier.com/blog/best-crm-app/', 'https://www.hubspot.com/pricing/crm'],
      fanOutQueries: ['best crm for startups 2025', 'hubspot free crm limits'],
      ads: [],
      model: 'claude-sonnet-4-5-20250929',
      costUsd: null,
    });
  });

  test('a reply without a model names the one asked for', async () => {
    const reply: Record<string, unknown> = message([{ type: 'text', text: 'An answer.' }]);
    delete reply.model;
    fake.replies.push({ json: reply });
    const capture = await check();
    assert.equal(capture.model, MODEL);
  });

  test('max_tokens with text is still an answer', async () => {
    fake.replies.push({ json: message([{ type: 'text', text: 'A long answer that was cut' }], 'max_tokens') });
    const capture = await check();
    assert.equal(capture.outcome === 'ok' && capture.answer, 'A long answer that was cut');
  });

  test('a failed search does not fail the check when the answer still came', async () => {
    fake.replies.push({ json: message([search('srvtoolu_01', 'best crm'), searchError('srvtoolu_01', 'max_uses_exceeded'), { type: 'text', text: 'From what I know, HubSpot.' }]) });
    const capture = await check();
    assert.equal(capture.outcome, 'ok');
    if (capture.outcome !== 'ok') return;
    assert.equal(capture.answer, 'From what I know, HubSpot.');
    assert.deepEqual(capture.sources, []);
    assert.deepEqual(capture.fanOutQueries, ['best crm']);
  });

  test('a search that failed for a while (rate limited, unavailable) and found nothing fails the check, answer or not: it is tried again', async () => {
    for (const [code, expected] of [['too_many_requests', 'rate_limited'], ['unavailable', 'server_error']] as const) {
      fake.replies.push({ json: message([search('srvtoolu_01', 'best crm'), searchError('srvtoolu_01', code), { type: 'text', text: 'I could not search; from memory, HubSpot.' }]) });
      const e = await failure(check());
      assert.equal(e.failure, expected, e.message);
      assert.equal(e.retryable, true);
    }
  });
});

describe('pause_turn', () => {
  test('the turn is resent with the assistant content so far, and every round is read', async () => {
    const first = answerBlocks.slice(0, 5);
    const second = answerBlocks.slice(5);
    const third: Block[] = [search('srvtoolu_03', 'crm for small teams'), results('srvtoolu_03', ['https://www.zoho.com/crm/'])];
    fake.replies.push({ json: message(first, 'pause_turn') }, { json: message(third, 'pause_turn') }, { json: message(second, 'end_turn', 'claude-sonnet-4-5-20250929') });
    const capture = await check('UK');
    assert.equal(fake.requests.length, 3);
    const messages = (n: number) => (fake.requests[n]!.body as { messages: unknown[] }).messages;
    assert.deepEqual(messages(1), [{ role: 'user', content: 'best crm for startups' }, { role: 'assistant', content: first }]);
    assert.deepEqual(messages(2), [{ role: 'user', content: 'best crm for startups' }, { role: 'assistant', content: [...first, ...third] }]);
    for (const request of fake.requests) {
      const body = request.body as { tools: unknown[]; model: string };
      assert.deepEqual(body.tools, [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5, user_location: { type: 'approximate', country: 'GB' } }]);
      assert.equal(body.model, MODEL);
    }
    assert.equal(capture.outcome, 'ok');
    if (capture.outcome !== 'ok') return;
    assert.ok(capture.answer.startsWith("I'll search for current CRM recommendations.\n\nBased on the search results, HubSpot"), capture.answer);
    assert.deepEqual(capture.fanOutQueries, ['best crm for startups 2025', 'hubspot free crm limits', 'crm for small teams']);
    assert.deepEqual(capture.sources.at(-1), 'https://www.zoho.com/crm/');
    assert.deepEqual(capture.citations, ['https://zapier.com/blog/best-crm-app/', 'https://www.hubspot.com/crm', 'https://www.pipedrive.com/']);
  });

  test('at most 4 rounds: a turn still paused with no text is refused', async () => {
    for (let i = 0; i < 6; i += 1) fake.replies.push({ json: message([search(`srvtoolu_${i}`, `query ${i}`), results(`srvtoolu_${i}`, [`https://r${i}.example/`])], 'pause_turn') });
    const error = await failure(check());
    assert.equal(error.failure, 'refused');
    assert.equal(fake.requests.length, 4);
  });

  test('at most 4 rounds: the text a still-paused turn has is the answer', async () => {
    for (let i = 0; i < 4; i += 1) fake.replies.push({ json: message([{ type: 'text', text: `Part ${i}.` }, search(`srvtoolu_${i}`, `query ${i}`)], 'pause_turn') });
    fake.replies.push({ json: message([{ type: 'text', text: 'never asked for' }]) });
    const capture = await check();
    assert.equal(fake.requests.length, 4);
    assert.equal(capture.outcome === 'ok' && capture.answer, 'Part 0.\n\nPart 1.\n\nPart 2.\n\nPart 3.');
  });

  test('the rounds share the time budget of the check', async () => {
    fake.replies.push({ json: message(answerBlocks.slice(0, 3), 'pause_turn'), delayMs: 250 }, 'hang');
    const started = Date.now();
    const error = await failure(check('', { timeoutMs: 400 }));
    assert.equal(error.failure, 'timeout');
    assert.equal(fake.requests.length, 2);
    // A fresh 400 ms for the second round would end near 650 ms.
    assert.ok(Date.now() - started < 560, `took ${Date.now() - started} ms`);
  });
});

describe('failures', () => {
  const error = (type: string, text: string, extra: Record<string, unknown> = {}) => ({ type: 'error', error: { type, message: text, ...extra }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' });
  const cases: { name: string; reply: FakeReply; failure: ProviderError['failure']; retryable: boolean; retryAfterMs?: number; timeoutMs?: number }[] = [
    { name: '429 rate_limit_error with retry-after', reply: { status: 429, headers: { 'retry-after': '12', 'anthropic-ratelimit-requests-remaining': '0' }, json: error('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit') }, failure: 'rate_limited', retryable: true, retryAfterMs: 12_000 },
    { name: '429 monthly spend cap (enforced_spend_limit_reached)', reply: { status: 429, json: error('rate_limit_error', 'You have reached your monthly spend limit.', { details: { error_code: 'enforced_spend_limit_reached' } }) }, failure: 'quota', retryable: false },
    { name: '400 credit balance too low', reply: { status: 400, json: error('invalid_request_error', 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.') }, failure: 'quota', retryable: false },
    { name: '400 workspace usage limit', reply: { status: 400, json: error('invalid_request_error', 'You have reached your specified workspace API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.') }, failure: 'quota', retryable: false },
    { name: '402 billing_error', reply: { status: 402, json: error('billing_error', 'There is an issue with your billing.') }, failure: 'quota', retryable: false },
    { name: '529 overloaded_error', reply: { status: 529, json: error('overloaded_error', 'Overloaded') }, failure: 'server_error', retryable: true },
    { name: '500 api_error', reply: { status: 500, json: error('api_error', 'Internal server error') }, failure: 'server_error', retryable: true },
    { name: '503', reply: { status: 503, text: 'upstream connect error' }, failure: 'server_error', retryable: true },
    { name: '401 authentication_error', reply: { status: 401, json: error('authentication_error', 'invalid x-api-key') }, failure: 'auth', retryable: false },
    { name: '403 permission_error', reply: { status: 403, json: error('permission_error', 'Web search is not enabled for your organization.') }, failure: 'auth', retryable: false },
    { name: '400 invalid_request_error', reply: { status: 400, json: error('invalid_request_error', 'tools.0: Input tag \'web_search_2025\' found using \'type\' does not match any of the expected tags') }, failure: 'bad_request', retryable: false },
    { name: '404 not_found_error (unknown model)', reply: { status: 404, json: error('not_found_error', 'model: claude-9') }, failure: 'bad_request', retryable: false },
    { name: 'a hang past timeoutMs', reply: 'hang', failure: 'timeout', retryable: true, timeoutMs: 300 },
    { name: 'a reset connection', reply: 'reset', failure: 'network', retryable: true },
    { name: '200 that is not JSON', reply: { text: 'event: ping' }, failure: 'malformed', retryable: false },
    { name: '200 without content', reply: { json: { id: 'msg_01', type: 'message', role: 'assistant', model: MODEL, stop_reason: 'end_turn' } }, failure: 'malformed', retryable: false },
    { name: '200 with content not a list', reply: { json: { ...message([]), content: 'text' } }, failure: 'malformed', retryable: false },
    { name: 'stop_reason refusal', reply: { json: message([{ type: 'text', text: 'I can' }], 'refusal') }, failure: 'refused', retryable: false },
    { name: 'an empty answer', reply: { json: message([{ type: 'text', text: ' ' }]) } , failure: 'refused', retryable: false },
    { name: 'no text, search rate limited', reply: { json: message([search('srvtoolu_01', 'crm'), searchError('srvtoolu_01', 'too_many_requests')]) }, failure: 'rate_limited', retryable: true },
    { name: 'no text, search unavailable', reply: { json: message([search('srvtoolu_01', 'crm'), searchError('srvtoolu_01', 'unavailable')]) }, failure: 'server_error', retryable: true },
    { name: 'no text, other search error', reply: { json: message([search('srvtoolu_01', 'crm'), searchError('srvtoolu_01', 'query_too_long')]) }, failure: 'refused', retryable: false },
  ];

  for (const c of cases) {
    test(`${c.name} -> ${c.failure}`, async () => {
      fake.replies.push(c.reply);
      const started = Date.now();
      const e = await failure(check('', c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}));
      assert.equal(e.failure, c.failure, e.message);
      assert.equal(e.retryable, c.retryable);
      if (c.retryAfterMs !== undefined) assert.equal(e.retryAfterMs, c.retryAfterMs);
      if (c.timeoutMs) assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
      assert.equal(fake.requests.length, 1, 'never retried inside the adapter');
    });
  }

  test('the provider message is kept; a search failure is named', async () => {
    fake.replies.push({ status: 403, json: error('permission_error', 'Web search is not enabled for your organization.') });
    assert.match((await failure(check())).message, /Web search is not enabled/);
    fake.replies.push({ json: message([search('srvtoolu_01', 'crm'), searchError('srvtoolu_01', 'query_too_long')]) });
    assert.match((await failure(check())).message, /query_too_long/);
  });
});
