import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { expectProviderError, useFakeProvider, type FakeProvider, type FakeReply } from '../../../test/fakes/fake-provider.ts';
import { ProviderError, type AdapterContext, type EngineAdapter, type ProviderSettings } from './provider.ts';
import { copilotAdapter, googleAiModeAdapter, googleAiOverviewsAdapter, renderTextBlocks } from './serpapi.ts';

const KEY = 'serp-key-0123';

const { fake, outbound } = useFakeProvider('serpapi.test');

const ENGINES = {
  google_ai_overviews: { adapter: googleAiOverviewsAdapter, model: 'google' },
  google_ai_mode: { adapter: googleAiModeAdapter, model: 'google_ai_mode' },
  copilot: { adapter: copilotAdapter, model: 'bing_copilot' },
} as const;

function context(engine: keyof typeof ENGINES, overrides: Partial<ProviderSettings> = {}): AdapterContext {
  return {
    outbound,
    settings: { engine, provider: 'serpapi', surface: 'serp', apiKey: KEY, baseUrl: fake.origin, model: ENGINES[engine].model, timeoutMs: 3000, ...overrides },
  };
}

function check(engine: keyof typeof ENGINES, location = '', overrides: Partial<ProviderSettings> = {}) {
  return ENGINES[engine].adapter.check({ prompt: 'best crm for startups', location }, context(engine, overrides));
}

/** The query parameters of the nth request the fake saw, as an object (every parameter appears once). */
function sent(n = 0): Record<string, string> {
  const request = fake.requests[n];
  assert.ok(request, `request ${n} was not sent`);
  return Object.fromEntries(new URL(request.url, 'http://fake').searchParams);
}

const failure = expectProviderError;

const metadata = (status = 'Success') => ({ id: '6650c1f2a8b3c4d5e6f70812', status, json_endpoint: 'https://serpapi.com/searches/abc/6650c1f2a8b3c4d5e6f70812.json', total_time_taken: 2.31 });

/** An AI Overview as SerpApi's google engine returns it inline (serpapi.com/ai-overview), with the page's ads. */
const inlineOverviewReply = {
  search_metadata: metadata(),
  search_parameters: { engine: 'google', q: 'best crm for startups', google_domain: 'google.com', hl: 'en', gl: 'us', device: 'desktop' },
  ads: [
    { position: 1, block_position: 'top', title: 'Acme CRM for Startups', link: 'https://www.acmecrm.com/startups', displayed_link: 'https://www.acmecrm.com › startups', source: 'Acme CRM' },
    { position: 1, block_position: 'bottom', title: 'Zed Sales - Free Trial', link: 'https://zedsales.io/trial', displayed_link: 'https://www.zedsales.io › trial' },
  ],
  ai_overview: {
    text_blocks: [
      { type: 'paragraph', snippet: 'The best CRM for a startup is one that is cheap to start with and grows with the team.', snippet_highlighted_words: ['cheap to start with'], reference_indexes: [2, 0] },
      { type: 'heading', snippet: 'Popular choices' },
      {
        type: 'list',
        list: [
          { title: 'HubSpot:', snippet: 'A free tier that covers contacts and deals.', reference_indexes: [1] },
          { title: 'Pipedrive:', snippet: 'Built around a visual sales pipeline.', reference_indexes: [2, 3], list: [{ snippet: 'Plans start at $14 per seat.', reference_indexes: [3] }] },
        ],
      },
      { type: 'paragraph', snippet: 'Try two before committing.', reference_indexes: [0] },
    ],
    references: [
      { title: 'Choosing a CRM', link: 'https://a.example/crm', snippet: 'How to choose...', source: 'A Blog', index: 0 },
      { title: 'HubSpot Free CRM', link: 'https://b.example/hubspot', snippet: 'Free CRM...', source: 'B', index: 1 },
      { title: 'CRM guide', link: 'https://c.example/guide', snippet: 'Guide...', source: 'C', index: 2 },
      { title: 'Pipedrive pricing', link: 'https://d.example/pricing', snippet: 'Pricing...', source: 'D', index: 3 },
      { title: 'Not cited', link: 'https://e.example/other', snippet: 'Other...', source: 'E', index: 4 },
      { title: 'CRM guide (again)', link: 'https://c.example/guide', snippet: 'Guide...', source: 'C', index: 5 },
    ],
  },
  organic_results: [{ position: 1, title: 'Best CRM', link: 'https://organic.example/best-crm' }],
};

const OVERVIEW_TEXT = [
  'The best CRM for a startup is one that is cheap to start with and grows with the team.',
  'Popular choices',
  '- HubSpot: A free tier that covers contacts and deals.',
  '- Pipedrive: Built around a visual sales pipeline.',
  '  - Plans start at $14 per seat.',
  'Try two before committing.',
].join('\n');

const aiModeReply = {
  search_metadata: metadata(),
  search_parameters: { engine: 'google_ai_mode', q: 'best crm for startups' },
  text_blocks: [
    { type: 'paragraph', snippet: 'For most startups, HubSpot or Pipedrive is a sensible start.', reference_indexes: [1] },
    { type: 'table', table: [['CRM', 'Free tier'], ['HubSpot', 'Yes'], ['Pipedrive', 'No']], reference_indexes: [0, 1] },
  ],
  references: [
    { title: 'HubSpot', link: 'https://hubspot.example/free', snippet: '...', source: 'HubSpot', index: 0 },
    { title: 'Review', link: 'https://review.example/crm', snippet: '...', source: 'Review', index: 1 },
  ],
  reconstructed_markdown: 'For most startups, **HubSpot** or **Pipedrive** is a sensible start.\n\n| CRM | Free tier |\n|---|---|\n| HubSpot | Yes |',
};

const copilotReply = {
  search_metadata: metadata(),
  search_parameters: { engine: 'bing_copilot', q: 'best crm for startups' },
  header: 'Top CRMs for startups',
  text_blocks: [
    { type: 'paragraph', snippet: 'Startups usually pick a CRM with a free plan.' },
    { type: 'list', list: [{ snippet: 'HubSpot CRM' }, { snippet: 'Zoho CRM' }] },
  ],
  references: [
    { title: 'Zoho', link: 'https://zoho.example/crm', snippet: '...', source: 'Zoho', index: 0 },
    { title: 'HubSpot', link: 'https://hubspot.example/crm', snippet: '...', source: 'HubSpot', index: 1 },
    { title: 'Zoho again', link: 'https://zoho.example/crm', snippet: '...', source: 'Zoho', index: 2 },
  ],
};

describe('the request each engine sends', () => {
  const LOCATIONS: [string, Record<string, string>][] = [
    ['', {}],
    ['US', { gl: 'us' }],
    ['UK', { gl: 'uk' }],
    ['GB', { gl: 'uk' }],
    ['de', { gl: 'de' }],
    ['Berlin, Germany', { location: 'Berlin, Germany' }],
  ];

  for (const [location, place] of LOCATIONS) {
    test(`google_ai_overviews with location ${JSON.stringify(location)}`, async () => {
      fake.replies.push({ json: inlineOverviewReply });
      await check('google_ai_overviews', location);
      const request = fake.requests[0]!;
      assert.equal(request.method, 'GET');
      assert.equal(new URL(request.url, 'http://fake').pathname, '/search.json');
      assert.equal(request.headers.authorization, undefined, 'SerpApi takes the key as api_key, not a header');
      assert.deepEqual(sent(), { engine: 'google', q: 'best crm for startups', hl: 'en', ...place, api_key: KEY, no_cache: 'true', output: 'json' });
    });

    test(`google_ai_mode with location ${JSON.stringify(location)}`, async () => {
      fake.replies.push({ json: aiModeReply });
      await check('google_ai_mode', location);
      assert.equal(new URL(fake.requests[0]!.url, 'http://fake').pathname, '/search.json');
      assert.deepEqual(sent(), { engine: 'google_ai_mode', q: 'best crm for startups', ...place, api_key: KEY, no_cache: 'true', output: 'json' });
    });

    test(`copilot sends no location for ${JSON.stringify(location)}`, async () => {
      fake.replies.push({ json: copilotReply });
      await check('copilot', location);
      assert.deepEqual(sent(), { engine: 'bing_copilot', q: 'best crm for startups', api_key: KEY, no_cache: 'true', output: 'json' });
    });
  }

  test('the prompt is sent verbatim, encoded', async () => {
    fake.replies.push({ json: copilotReply });
    await copilotAdapter.check({ prompt: 'is "Acme & Co" any good? 100%', location: '' }, context('copilot'));
    assert.equal(sent().q, 'is "Acme & Co" any good? 100%');
  });
});

describe('google_ai_overviews', () => {
  test('an inline AI Overview: text in order, citations by first reference, sources, ads', async () => {
    fake.replies.push({ json: inlineOverviewReply });
    const capture = await check('google_ai_overviews', 'US');
    assert.deepEqual(capture, {
      outcome: 'ok',
      answer: OVERVIEW_TEXT,
      citations: ['https://c.example/guide', 'https://a.example/crm', 'https://b.example/hubspot', 'https://d.example/pricing'],
      sources: ['https://a.example/crm', 'https://b.example/hubspot', 'https://c.example/guide', 'https://d.example/pricing', 'https://e.example/other'],
      fanOutQueries: [],
      ads: [
        { advertiser: 'Acme CRM', url: 'https://www.acmecrm.com/startups' },
        { advertiser: 'zedsales.io', url: 'https://zedsales.io/trial' },
      ],
      model: 'google',
      costUsd: null,
    });
    assert.equal(fake.requests.length, 1, 'no follow-up when the overview is inline');
  });

  test('an overview behind a page_token is fetched with a second call to google_ai_overview', async () => {
    fake.replies.push(
      {
        json: {
          search_metadata: metadata(),
          ads: inlineOverviewReply.ads,
          ai_overview: { page_token: 'KIVu-nictZPdjqM2FMdVoHZ', serpapi_link: 'https://serpapi.com/search.json?engine=google_ai_overview&page_token=KIVu-nictZPdjqM2FMdVoHZ' },
        },
      },
      { json: { search_metadata: metadata(), search_parameters: { engine: 'google_ai_overview' }, ai_overview: inlineOverviewReply.ai_overview } },
    );
    const capture = await check('google_ai_overviews', 'UK');
    assert.equal(fake.requests.length, 2);
    assert.deepEqual(sent(1), { engine: 'google_ai_overview', page_token: 'KIVu-nictZPdjqM2FMdVoHZ', api_key: KEY, no_cache: 'true', output: 'json' });
    assert.equal(capture.outcome, 'ok');
    if (capture.outcome !== 'ok') return;
    assert.equal(capture.answer, OVERVIEW_TEXT);
    assert.equal(capture.citations[0], 'https://c.example/guide');
    assert.equal(capture.ads.length, 2, 'the ads come from the result page of the first call');
  });

  test('the follow-up shares the time budget of the check', async () => {
    fake.replies.push({ json: { search_metadata: metadata(), ai_overview: { page_token: 'tok' } }, delayMs: 300 }, 'hang');
    const started = Date.now();
    const error = await failure(check('google_ai_overviews', '', { timeoutMs: 400 }));
    assert.equal(error.failure, 'timeout');
    assert.equal(fake.requests.length, 2);
    // A fresh 400 ms for the follow-up would end near 700 ms.
    assert.ok(Date.now() - started < 600, `took ${Date.now() - started} ms`);
  });

  test('a result page without an AI Overview is no_answer', async () => {
    fake.replies.push({ json: { ...inlineOverviewReply, ai_overview: undefined } });
    const capture = await check('google_ai_overviews');
    assert.deepEqual(capture, { outcome: 'no_answer', reason: 'no AI Overview for this query', model: 'google', costUsd: null });
  });

  test('ai_overview.error is no_answer with that reason', async () => {
    fake.replies.push({ json: { search_metadata: metadata(), ai_overview: { error: 'Google failed to generate an AI Overview.' } } });
    const capture = await check('google_ai_overviews');
    assert.equal(capture.outcome, 'no_answer');
    assert.match(capture.outcome === 'no_answer' ? capture.reason : '', /Google failed to generate an AI Overview\./);
  });

  test('an AI Overview that is still only a page_token after the follow-up is no_answer', async () => {
    fake.replies.push({ json: { search_metadata: metadata(), ai_overview: { page_token: 'tok' } } }, { json: { search_metadata: metadata() } });
    const capture = await check('google_ai_overviews');
    assert.equal(capture.outcome, 'no_answer');
    assert.equal(fake.requests.length, 2);
  });

  test('an overview whose blocks hold no text is refused', async () => {
    fake.replies.push({ json: { search_metadata: metadata(), ai_overview: { text_blocks: [{ type: 'paragraph', snippet: '  ' }, { type: 'image', thumbnail: 'https://t.example/x.png' }] } } });
    assert.equal((await failure(check('google_ai_overviews'))).failure, 'refused');
  });
});

describe('google_ai_mode', () => {
  test('text blocks rendered (tables as rows), cited and retrieved references', async () => {
    fake.replies.push({ json: aiModeReply });
    const capture = await check('google_ai_mode', 'Berlin, Germany');
    assert.deepEqual(capture, {
      outcome: 'ok',
      answer: 'For most startups, HubSpot or Pipedrive is a sensible start.\nCRM | Free tier\nHubSpot | Yes\nPipedrive | No',
      citations: ['https://review.example/crm', 'https://hubspot.example/free'],
      sources: ['https://hubspot.example/free', 'https://review.example/crm'],
      fanOutQueries: [],
      ads: [],
      model: 'google_ai_mode',
      costUsd: null,
    });
  });

  test('without text blocks, the reconstructed markdown is the answer', async () => {
    fake.replies.push({ json: { ...aiModeReply, text_blocks: undefined } });
    const capture = await check('google_ai_mode');
    assert.equal(capture.outcome, 'ok');
    if (capture.outcome !== 'ok') return;
    assert.equal(capture.answer, aiModeReply.reconstructed_markdown);
    assert.deepEqual(capture.citations, ['https://hubspot.example/free', 'https://review.example/crm'], 'no indexes to follow: the references in order');
  });

  test('no text blocks and no markdown is no_answer', async () => {
    fake.replies.push({ json: { search_metadata: metadata(), search_parameters: { engine: 'google_ai_mode' }, text_blocks: [] } });
    const capture = await check('google_ai_mode');
    assert.deepEqual(capture, { outcome: 'no_answer', reason: 'no AI Mode answer for this query', model: 'google_ai_mode', costUsd: null });
  });
});

describe('copilot', () => {
  test('header then text blocks; without reference indexes, every reference is cited in order, once', async () => {
    fake.replies.push({ json: copilotReply });
    const capture = await check('copilot', 'US');
    assert.deepEqual(capture, {
      outcome: 'ok',
      answer: 'Top CRMs for startups\nStartups usually pick a CRM with a free plan.\n- HubSpot CRM\n- Zoho CRM',
      citations: ['https://zoho.example/crm', 'https://hubspot.example/crm'],
      sources: ['https://zoho.example/crm', 'https://hubspot.example/crm'],
      fanOutQueries: [],
      ads: [],
      model: 'bing_copilot',
      costUsd: null,
    });
  });

  test('no text blocks is no_answer', async () => {
    fake.replies.push({ json: { search_metadata: metadata(), search_parameters: { engine: 'bing_copilot' }, header: 'Top CRMs for startups' } });
    const capture = await check('copilot');
    assert.deepEqual(capture, { outcome: 'no_answer', reason: 'no Copilot answer for this query', model: 'bing_copilot', costUsd: null });
  });
});

describe('failures, on every engine', () => {
  const engines = Object.keys(ENGINES) as (keyof typeof ENGINES)[];

  const cases: { name: string; reply: FakeReply; failure: ProviderError['failure']; retryable: boolean; retryAfterMs?: number; message?: RegExp }[] = [
    { name: '429 over the hourly throughput, with retry-after', reply: { status: 429, headers: { 'retry-after': '7' }, json: { error: 'The number of requests sent using this API key exceeds the hourly throughput limit.' } }, failure: 'rate_limited', retryable: true, retryAfterMs: 7000 },
    { name: '429 out of searches', reply: { status: 429, json: { error: 'Your account has run out of searches.' } }, failure: 'quota', retryable: false, message: /run out of searches/ },
    { name: '401 invalid key', reply: { status: 401, json: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' } }, failure: 'auth', retryable: false },
    { name: '403 deleted account', reply: { status: 403, json: { error: 'The account associated with this API key does not have permission.' } }, failure: 'auth', retryable: false },
    { name: '400 missing parameter', reply: { status: 400, json: { error: 'Missing query `q` parameter.' } }, failure: 'bad_request', retryable: false },
    { name: '500', reply: { status: 500, json: { error: 'Internal error' } }, failure: 'server_error', retryable: true },
    { name: '503 with search status Error', reply: { status: 503, json: { search_metadata: metadata('Error'), error: "We couldn't get valid results for this search. Please try again later." } }, failure: 'server_error', retryable: true },
    { name: '200 with search status Error', reply: { json: { search_metadata: metadata('Error'), error: "We couldn't get valid results for this search. Please try again later." } }, failure: 'server_error', retryable: true },
    { name: '200 with search status Processing', reply: { json: { search_metadata: metadata('Processing') } }, failure: 'server_error', retryable: true },
    { name: '200 error: out of searches', reply: { json: { error: 'Your account has run out of searches.' } }, failure: 'quota', retryable: false },
    { name: '200 error: invalid key', reply: { json: { error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key' } }, failure: 'auth', retryable: false },
    { name: '200 error: anything else', reply: { json: { search_metadata: metadata(), error: 'Unsupported `xx` location - location parameter.' } }, failure: 'bad_request', retryable: false, message: /Unsupported `xx` location/ },
    { name: '200 that is not JSON', reply: { text: '<html>gateway</html>' }, failure: 'malformed', retryable: false },
    { name: '200 JSON without search_metadata', reply: { json: { results: [] } }, failure: 'malformed', retryable: false },
    { name: '200 JSON array', reply: { json: [] }, failure: 'malformed', retryable: false },
    { name: 'a reset connection', reply: 'reset', failure: 'network', retryable: true },
  ];

  for (const engine of engines) {
    for (const c of cases) {
      test(`${engine}: ${c.name} -> ${c.failure}`, async () => {
        fake.replies.push(c.reply);
        const error = await failure(check(engine));
        assert.equal(error.failure, c.failure, error.message);
        assert.equal(error.retryable, c.retryable);
        if (c.retryAfterMs !== undefined) assert.equal(error.retryAfterMs, c.retryAfterMs);
        if (c.message) assert.match(error.message, c.message);
      });
    }

    test(`${engine}: "hasn't returned any results" is no_answer, not a failure`, async () => {
      fake.replies.push({ json: { search_metadata: metadata(), error: "Google hasn't returned any results for this query." } });
      const capture = await check(engine);
      assert.equal(capture.outcome, 'no_answer');
      assert.match(capture.outcome === 'no_answer' ? capture.reason : '', /hasn't returned any results for this query/);
    });

    test(`${engine}: text_blocks that are not a list -> malformed`, async () => {
      const body = engine === 'google_ai_overviews' ? { search_metadata: metadata(), ai_overview: { text_blocks: 'oops' } } : { search_metadata: metadata(), text_blocks: { snippet: 'oops' } };
      fake.replies.push({ json: body });
      assert.equal((await failure(check(engine))).failure, 'malformed');
    });

    test(`${engine}: a hang past timeoutMs -> timeout`, async () => {
      fake.replies.push('hang');
      const started = Date.now();
      const error = await failure(check(engine, '', { timeoutMs: 300 }));
      assert.equal(error.failure, 'timeout');
      assert.equal(error.retryable, true);
      assert.ok(Date.now() - started < 1500);
    });
  }

  test('the key never appears in a failure message, even one that quotes the URL', async () => {
    const error = await failure(check('copilot', '', { baseUrl: 'not-a-url' }));
    assert.equal(error.failure, 'bad_request');
    assert.match(error.message, /api_key=\*\*\*/);
    assert.ok(!error.message.includes(KEY), error.message);
  });
});

describe('renderTextBlocks', () => {
  test('expandable sections, nested blocks and code as plain text, in order', () => {
    const text = renderTextBlocks([
      { type: 'heading', snippet: 'Setup' },
      { type: 'expandable', title: 'Step 1', text_blocks: [{ type: 'paragraph', snippet: 'Install it.' }, { type: 'list', list: [{ title: 'Linux', snippet: 'apt install x' }] }] },
      { type: 'code_block', code: 'x --version' },
      'not a block',
      { type: 'list', list: [{ snippet: '' }, { title: 'Only a title' }] },
    ]);
    assert.equal(text, 'Setup\nStep 1\nInstall it.\n- Linux apt install x\nx --version\n- Only a title');
  });
});

// The adapters are the exported objects the registry picks by engine.
test('each adapter is the serp surface of the serpapi provider', () => {
  for (const adapter of [googleAiOverviewsAdapter, googleAiModeAdapter, copilotAdapter] as EngineAdapter[]) {
    assert.equal(adapter.provider, 'serpapi');
    assert.equal(adapter.surface, 'serp');
  }
});
