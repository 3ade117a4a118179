import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { expectProviderError, useFakeProvider, type FakeHandler, type FakeProvider, type FakeReply } from '../../../test/fakes/fake-provider.ts';
import { geminiAdapter, locationInstruction, readGeminiReply } from './gemini.ts';
import { ProviderError, type AdapterContext, type ProviderSettings } from './provider.ts';

const KEY = 'AIza-test-key-0123';
const MODEL = 'gemini-2.5-flash';

const noRoute: FakeHandler = () => ({ status: 500, json: { error: { code: 500, message: 'no reply queued', status: 'INTERNAL' } } });
const { fake, outbound } = useFakeProvider('gemini.test', noRoute);

function context(overrides: Partial<ProviderSettings> = {}): AdapterContext {
  return { outbound, settings: { engine: 'gemini', provider: 'gemini', surface: 'api', apiKey: KEY, baseUrl: fake.origin, model: MODEL, timeoutMs: 3000, ...overrides } };
}

function check(location = '', overrides: Partial<ProviderSettings> = {}) {
  return geminiAdapter.check({ prompt: 'best crm for startups', location }, context(overrides));
}

const failure = expectProviderError;

const redirect = (token: string) => `${fake.origin}/grounding-api-redirect/${token}`;

/** The fake answers redirect URIs as Google does: 302 to the page, by token. */
function redirectsTo(targets: Record<string, FakeReply>): void {
  fake.fallback = (request) => {
    const token = request.url.replace('/grounding-api-redirect/', '');
    return targets[token] ?? { status: 404, text: 'not found' };
  };
}
const to = (location: string): FakeReply => ({ status: 302, headers: { location }, text: '' });

/** A grounded answer as the Developer API returns it (ai.google.dev grounding docs; genai.d.ts GroundingMetadata). */
function groundedReply(): Record<string, unknown> {
  return {
    candidates: [
      {
        content: {
          role: 'model',
          parts: [
            { text: 'For most startups, HubSpot is the usual first CRM because its free tier covers contacts and deals. ' },
            { text: 'Pipedrive suits teams that sell through a visual pipeline.' },
          ],
        },
        finishReason: 'STOP',
        groundingMetadata: {
          webSearchQueries: ['best crm for startups 2025', 'hubspot free crm limits', 'best crm for startups 2025'],
          searchEntryPoint: { renderedContent: '<style>.container{}</style><div class="container">...</div>' },
          groundingChunks: [
            { web: { uri: redirect('AUZIYQa'), title: 'hubspot.com' } },
            { web: { uri: redirect('AUZIYQb'), title: 'pipedrive.com' } },
            { web: { uri: redirect('AUZIYQc'), title: 'techradar.com' } },
            { web: { uri: redirect('AUZIYQd'), title: 'hubspot.com' } },
            { web: { uri: redirect('AUZIYQe'), title: 'g2.com' } },
          ],
          groundingSupports: [
            { segment: { startIndex: 0, endIndex: 97, text: 'For most startups, HubSpot is the usual first CRM because its free tier covers contacts and deals.' }, groundingChunkIndices: [2, 0], confidenceScores: [0.91, 0.88] },
            { segment: { startIndex: 98, endIndex: 157, text: 'Pipedrive suits teams that sell through a visual pipeline.' }, groundingChunkIndices: [1, 3, 2], confidenceScores: [0.95, 0.7, 0.6] },
          ],
          retrievalMetadata: {},
        },
        avgLogprobs: -0.21,
      },
    ],
    usageMetadata: { promptTokenCount: 9, candidatesTokenCount: 41, totalTokenCount: 50, toolUsePromptTokenCount: 210 },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'mBvTaOKXBv6nz7IP1-GRqAk',
  };
}

const PAGES: Record<string, FakeReply> = {
  AUZIYQa: to('https://www.hubspot.com/products/crm'),
  AUZIYQb: to('https://www.pipedrive.com/en/features'),
  AUZIYQc: to('https://www.techradar.com/best/best-crm-software'),
  AUZIYQd: to('https://www.hubspot.com/products/crm'), // another token, the same page
  AUZIYQe: to('https://www.g2.com/categories/crm'),
};

describe('the request', () => {
  const LOCATIONS: [string, string | undefined][] = [
    ['', undefined],
    ['US', 'The user is in United States.'],
    ['UK', 'The user is in United Kingdom.'],
    ['GB', 'The user is in United Kingdom.'],
    ['de', 'The user is in Germany.'],
    ['Berlin, Germany', 'The user is in Berlin, Germany.'],
  ];
  for (const [location, starts] of LOCATIONS) {
    test(`generateContent with google_search, location ${JSON.stringify(location)}`, async () => {
      fake.replies.push({ json: { candidates: [{ content: { parts: [{ text: 'An answer.' }] }, finishReason: 'STOP' }], modelVersion: MODEL } });
      await check(location);
      assert.equal(fake.requests.length, 1);
      const request = fake.requests[0]!;
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/v1beta/models/gemini-2.5-flash:generateContent', 'the key travels in a header, never the URL');
      assert.equal(request.headers['x-goog-api-key'], KEY);
      assert.equal(request.headers['content-type'], 'application/json');
      const body = request.body as Record<string, unknown>;
      assert.deepEqual(body.contents, [{ role: 'user', parts: [{ text: 'best crm for startups' }] }]);
      assert.deepEqual(body.tools, [{ google_search: {} }]);
      if (starts === undefined) {
        assert.deepEqual(Object.keys(body).sort(), ['contents', 'tools'], 'no location: no instruction');
      } else {
        const instruction = body.systemInstruction as { parts: { text: string }[] };
        assert.equal(instruction.parts.length, 1);
        assert.ok(instruction.parts[0]!.text.startsWith(starts), instruction.parts[0]!.text);
      }
    });
  }

  test('the model named in settings is the one in the path', async () => {
    fake.replies.push({ json: { candidates: [{ content: { parts: [{ text: 'An answer.' }] } }] } });
    await check('', { model: 'gemini-3-flash-preview' });
    assert.equal(fake.requests[0]!.url, '/v1beta/models/gemini-3-flash-preview:generateContent');
  });

  test('an unknown country code is kept as written', () => {
    assert.match(locationInstruction('XQ') ?? '', /^The user is in XQ\./);
    assert.equal(locationInstruction('  '), undefined);
  });
});

describe('a grounded answer', () => {
  test('answer, citations by first reference, sources in order, fan-out, model; redirects resolved and de-duplicated', async () => {
    fake.replies.push({ json: groundedReply() });
    redirectsTo(PAGES);
    const capture = await check('US');
    assert.deepEqual(capture, {
      outcome: 'ok',
      answer: 'For most startups, HubSpot is the usual first CRM because its free tier covers contacts and deals. Pipedrive suits teams that sell through a visual pipeline.',
      citations: ['https://www.techradar.com/best/best-crm-software', 'https://www.hubspot.com/products/crm', 'https://www.pipedrive.com/en/features'],
      sources: ['https://www.hubspot.com/products/crm', 'https://www.pipedrive.com/en/features', 'https://www.techradar.com/best/best-crm-software', 'https://www.g2.com/categories/crm'],
      fanOutQueries: ['best crm for startups 2025', 'hubspot free crm limits'],
      ads: [],
      model: 'gemini-2.5-flash',
      costUsd: null,
    });
    const lookups = fake.requests.slice(1);
    assert.deepEqual(lookups.map((r) => r.url).sort(), ['a', 'b', 'c', 'd', 'e'].map((t) => `/grounding-api-redirect/AUZIYQ${t}`), 'each distinct redirect asked once');
    assert.ok(lookups.every((r) => r.method === 'GET' && r.headers['x-goog-api-key'] === undefined), 'the key is not sent to redirect hosts');
  });

  test('redirects are not followed: the Location is read, the page itself never fetched', async () => {
    const page = `${fake.origin}/the-page`;
    fake.replies.push({ json: groundedReply() });
    redirectsTo({ ...PAGES, AUZIYQa: to(page) });
    const capture = await check();
    assert.equal(capture.outcome === 'ok' && capture.sources[0], page);
    assert.ok(!fake.requests.some((r) => r.url === '/the-page'));
  });

  test('a redirect that cannot be resolved keeps the URI as given', async () => {
    const reply = groundedReply();
    const metadata = (reply.candidates as { groundingMetadata: { groundingChunks: { web: { uri: string } }[] } }[])[0]!.groundingMetadata;
    const blocked = 'http://127.0.0.1:9/grounding-api-redirect/private'; // not the fake's mapped host: the guarded client refuses it
    metadata.groundingChunks[4]!.web.uri = blocked;
    fake.replies.push({ json: reply });
    redirectsTo({
      AUZIYQa: { status: 200, text: 'no location' },
      AUZIYQb: 'reset',
      AUZIYQc: { status: 302, headers: { location: 'javascript:alert(1)' }, text: '' },
      AUZIYQd: to('https://www.hubspot.com/products/crm'),
    });
    const capture = await check();
    assert.equal(capture.outcome, 'ok');
    if (capture.outcome !== 'ok') return;
    assert.deepEqual(capture.sources, [redirect('AUZIYQa'), redirect('AUZIYQb'), redirect('AUZIYQc'), 'https://www.hubspot.com/products/crm', blocked]);
    assert.deepEqual(capture.citations, [redirect('AUZIYQc'), redirect('AUZIYQa'), redirect('AUZIYQb'), 'https://www.hubspot.com/products/crm']);
  });

  test('URIs that are not grounding redirects are kept without a request', async () => {
    const reply = { candidates: [{ content: { parts: [{ text: 'Answer.' }] }, groundingMetadata: { groundingChunks: [{ web: { uri: 'https://direct.example/page', title: 'direct.example' } }], groundingSupports: [{ groundingChunkIndices: [0] }] } }] };
    fake.replies.push({ json: reply });
    const capture = await check();
    assert.equal(capture.outcome === 'ok' && capture.citations[0], 'https://direct.example/page');
    assert.equal(fake.requests.length, 1);
  });

  test('redirects are resolved a few at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const tokens = Array.from({ length: 10 }, (_, i) => `t${i}`);
    fake.replies.push({ json: { candidates: [{ content: { parts: [{ text: 'Answer.' }] }, groundingMetadata: { groundingChunks: tokens.map((t) => ({ web: { uri: redirect(t) } })) } }] } });
    fake.fallback = async (request) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 40));
      inFlight -= 1;
      return to(`https://pages.example/${request.url.split('/').pop()}`);
    };
    const capture = await check();
    assert.deepEqual(capture.outcome === 'ok' && capture.sources, tokens.map((t) => `https://pages.example/${t}`));
    assert.ok(most > 1 && most <= 4, `at most 4 at once, saw ${most}`);
  });

  test('resolving stays within the check budget: a hanging redirect keeps its URI', async () => {
    fake.replies.push({ json: { candidates: [{ content: { parts: [{ text: 'Answer.' }] }, groundingMetadata: { groundingChunks: [{ web: { uri: redirect('slow') } }] } }] } });
    fake.fallback = () => 'hang';
    const started = Date.now();
    const capture = await check('', { timeoutMs: 400 });
    assert.deepEqual(capture.outcome === 'ok' && capture.sources, [redirect('slow')]);
    assert.ok(Date.now() - started < 900, `took ${Date.now() - started} ms`);
  });

  test('an answer without grounding (the model did not search) has no links', async () => {
    fake.replies.push({ json: { candidates: [{ content: { parts: [{ text: 'Paris.' }], role: 'model' }, finishReason: 'STOP' }], modelVersion: 'gemini-2.5-flash-001' } });
    assert.deepEqual(await check(), { outcome: 'ok', answer: 'Paris.', citations: [], sources: [], fanOutQueries: [], ads: [], model: 'gemini-2.5-flash-001', costUsd: null });
  });

  test('thought summaries are not the answer; the asked model stands in when none is reported', () => {
    const reading = readGeminiReply({ candidates: [{ content: { parts: [{ text: 'Let me think.', thought: true }, { text: 'The answer.' }] }, finishReason: 'MAX_TOKENS' }] }, 'asked-model');
    assert.equal(reading.answer, 'The answer.');
    assert.equal(reading.model, 'asked-model');
  });
});

describe('failures', () => {
  const quotaExceeded = {
    error: {
      code: 429,
      message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' }] },
        { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '44s' },
      ],
    },
  };
  const cases: { name: string; reply: FakeReply; failure: ProviderError['failure']; retryable: boolean; retryAfterMs?: number; timeoutMs?: number }[] = [
    { name: '429 RESOURCE_EXHAUSTED with RetryInfo', reply: { status: 429, json: quotaExceeded }, failure: 'rate_limited', retryable: true, retryAfterMs: 44_000 },
    { name: '429 with retry-after (seconds)', reply: { status: 429, headers: { 'retry-after': '7' }, json: { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } } }, failure: 'rate_limited', retryable: true, retryAfterMs: 7000 },
    { name: '429 with retry-after-ms', reply: { status: 429, headers: { 'retry-after-ms': '1500' }, json: quotaExceeded }, failure: 'rate_limited', retryable: true, retryAfterMs: 1500 },
    { name: '429 prepaid credits depleted', reply: { status: 429, json: { error: { code: 429, message: 'Your prepayment credits are depleted. Please go to AI Studio at https://ai.studio/projects to manage your project and billing.', status: 'RESOURCE_EXHAUSTED' } } }, failure: 'quota', retryable: false },
    { name: '400 billing must be enabled', reply: { status: 400, json: { error: { code: 400, message: 'Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.', status: 'FAILED_PRECONDITION' } } }, failure: 'quota', retryable: false },
    { name: '400 INVALID_ARGUMENT', reply: { status: 400, json: { error: { code: 400, message: 'Invalid JSON payload received. Unknown name "google_searc" at \'tools[0]\'', status: 'INVALID_ARGUMENT' } } }, failure: 'bad_request', retryable: false },
    { name: '400 API_KEY_INVALID', reply: { status: 400, json: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }] } } }, failure: 'auth', retryable: false },
    { name: '401 UNAUTHENTICATED', reply: { status: 401, json: { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } } }, failure: 'auth', retryable: false },
    { name: '403 PERMISSION_DENIED', reply: { status: 403, json: { error: { code: 403, message: 'Method doesn\'t allow unregistered callers.', status: 'PERMISSION_DENIED' } } }, failure: 'auth', retryable: false },
    { name: '404 unknown model', reply: { status: 404, json: { error: { code: 404, message: 'models/gemini-9 is not found for API version v1beta', status: 'NOT_FOUND' } } }, failure: 'bad_request', retryable: false },
    { name: '500 INTERNAL', reply: { status: 500, json: { error: { code: 500, message: 'An internal error has occurred.', status: 'INTERNAL' } } }, failure: 'server_error', retryable: true },
    { name: '503 UNAVAILABLE', reply: { status: 503, json: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } } }, failure: 'server_error', retryable: true },
    { name: 'a hang past timeoutMs', reply: 'hang', failure: 'timeout', retryable: true, timeoutMs: 300 },
    { name: 'a reset connection', reply: 'reset', failure: 'network', retryable: true },
    { name: '200 that is not JSON', reply: { text: '<html>proxy error</html>' }, failure: 'malformed', retryable: false },
    { name: '200 without candidates', reply: { json: { usageMetadata: { promptTokenCount: 4 } } }, failure: 'malformed', retryable: false },
    { name: '200 with candidates not a list', reply: { json: { candidates: { content: {} } } }, failure: 'malformed', retryable: false },
    { name: '200 with parts not a list', reply: { json: { candidates: [{ content: { parts: 'text' } }] } }, failure: 'malformed', retryable: false },
    { name: 'a blocked prompt (no candidates, blockReason)', reply: { json: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, modelVersion: MODEL } }, failure: 'refused', retryable: false },
    { name: 'finishReason SAFETY without content', reply: { json: { candidates: [{ finishReason: 'SAFETY', safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }] }] } }, failure: 'refused', retryable: false },
    { name: 'finishReason RECITATION with partial text', reply: { json: { candidates: [{ content: { parts: [{ text: 'The lyrics go' }] }, finishReason: 'RECITATION' }] } }, failure: 'refused', retryable: false },
    { name: 'finishReason BLOCKLIST', reply: { json: { candidates: [{ finishReason: 'BLOCKLIST' }] } }, failure: 'refused', retryable: false },
    { name: 'an empty answer', reply: { json: { candidates: [{ content: { parts: [{ text: '  ' }] }, finishReason: 'STOP' }] } }, failure: 'refused', retryable: false },
    { name: 'a candidate without content', reply: { json: { candidates: [{ finishReason: 'STOP' }] } }, failure: 'refused', retryable: false },
  ];

  for (const c of cases) {
    test(`${c.name} -> ${c.failure}`, async () => {
      fake.replies.push(c.reply);
      const started = Date.now();
      const error = await failure(check('', c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}));
      assert.equal(error.failure, c.failure, error.message);
      assert.equal(error.retryable, c.retryable);
      if (c.retryAfterMs !== undefined) assert.equal(error.retryAfterMs, c.retryAfterMs);
      if (c.timeoutMs) assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
      assert.equal(fake.requests.length, 1, 'never retried inside the adapter');
    });
  }

  test('the provider message is kept', async () => {
    fake.replies.push({ status: 404, json: { error: { code: 404, message: 'models/gemini-9 is not found for API version v1beta', status: 'NOT_FOUND' } } });
    assert.match((await failure(check())).message, /models\/gemini-9 is not found/);
  });
});
