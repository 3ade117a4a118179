import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { col, readTsv } from '../../test/agents-corpus.ts';
import { AI_LANDING_PARAMS, AI_REFERRER_APPS, AI_REFERRER_HOSTS, AI_REFERRER_PATHS, AI_UTM_SOURCES, classifyReferral } from './ai-referrals.ts';
import { PLATFORMS } from './crawler-registry.ts';

const platformOf = (referrer: string | null | undefined, landingUrl?: string | null) => classifyReferral(referrer, landingUrl)?.platform;

describe('AI referral data', () => {
  test('every platform is in PLATFORMS and the label comes from there', () => {
    const platforms = [
      ...Object.values(AI_REFERRER_HOSTS),
      ...AI_REFERRER_PATHS.map((p) => p.platform),
      ...Object.values(AI_REFERRER_APPS),
      ...Object.values(AI_UTM_SOURCES),
    ];
    for (const p of platforms) assert.ok(Object.hasOwn(PLATFORMS, p), p);
    for (const [host, platform] of Object.entries(AI_REFERRER_HOSTS)) {
      assert.deepEqual(classifyReferral(host), { platform, platformLabel: PLATFORMS[platform] }, host);
    }
  });

  test('hosts are bare, lower-case and without www.; search engines are not on the list', () => {
    for (const host of Object.keys(AI_REFERRER_HOSTS)) assert.match(host, /^(?!www\.)[a-z0-9-]+(\.[a-z0-9-]+)+$/, host);
    for (const host of ['google.com', 'bing.com', 'duckduckgo.com', 'x.com', 'openai.com', 'facebook.com']) {
      assert.ok(!Object.hasOwn(AI_REFERRER_HOSTS, host), host);
    }
    assert.deepEqual([...AI_LANDING_PARAMS], ['utm_source', 'referrer']);
  });
});

describe('classifyReferral on the corpus', () => {
  test('ai_referrers.tsv: every referrer is detected with the expected platform', () => {
    const rows = readTsv('ai_referrers.tsv');
    const misses = rows
      .filter((row) => platformOf(col(row, 0)) !== col(row, 1))
      .map((row) => `${col(row, 0)} -> ${platformOf(col(row, 0))} (expected ${col(row, 1)})`);
    console.log(`ai_referrers.tsv recall: ${rows.length - misses.length}/${rows.length}`);
    assert.ok(rows.length >= 40);
    assert.deepEqual(misses, []);
  });

  test('non_ai_referrers.tsv: no referrer is AI', () => {
    const rows = readTsv('non_ai_referrers.tsv');
    const falsePositives = rows.filter((row) => classifyReferral(col(row, 0)) !== undefined).map((row) => `${col(row, 0)} -> ${platformOf(col(row, 0))}`);
    console.log(`non_ai_referrers.tsv false positives: ${falsePositives.length}/${rows.length}`);
    assert.ok(rows.length >= 60);
    assert.deepEqual(falsePositives, []);
  });

  test('ai_landing_url_params.tsv: tagged landing URLs are AI with no referrer; `none` controls are not', () => {
    const rows = readTsv('ai_landing_url_params.tsv');
    let correct = 0;
    for (const row of rows) {
      const [url, expected] = [col(row, 0), col(row, 1)];
      const want = expected === 'none' ? undefined : expected;
      for (const referrer of [null, undefined, '']) assert.equal(platformOf(referrer, url), want, url);
      // An ordinary referrer does not hide the tag (the spec's rule is "or").
      assert.equal(platformOf('https://www.google.com/', url), want, url);
      // Server logs carry only the request target.
      const path = url.replace(/^https?:\/\/[^/?#]+/, '');
      assert.equal(platformOf(null, path), want, path);
      if (platformOf(null, url) === want) correct++;
    }
    console.log(`ai_landing_url_params.tsv correct: ${correct}/${rows.length} (controls included)`);
    assert.ok(rows.filter((row) => col(row, 1) === 'none').length >= 2);
  });

  // Decision: the operators' corporate and docs hosts are not assistants. A click from openai.com's
  // blog or platform docs, deepseek.com or mistral.ai is not an answer citing the site; only the
  // assistant hosts (chatgpt.com, chat.deepseek.com, chat.mistral.ai ...) count. Hosts match exactly.
  test('ambiguous_referrers.tsv: corporate hosts are not AI referrals', () => {
    const rows = readTsv('ambiguous_referrers.tsv');
    assert.equal(rows.length, 3);
    for (const row of rows) {
      const host = col(row, 0);
      for (const referrer of [host, `https://${host}/`, `https://www.${host}/blog/post`]) assert.equal(classifyReferral(referrer), undefined, referrer);
    }
    for (const referrer of ['https://platform.openai.com/docs', 'https://docs.perplexity.ai/', 'https://help.openai.com/en/', 'https://status.anthropic.com']) {
      assert.equal(classifyReferral(referrer), undefined, referrer);
    }
  });
});

describe('classifyReferral forms and edge cases', () => {
  test('bare hosts, full URLs, scheme-less URLs, ports, case, www., userinfo, trailing dot', () => {
    const cases: [string, string | undefined][] = [
      ['chatgpt.com', 'openai'],
      ['https://chatgpt.com/', 'openai'],
      ['HTTPS://ChatGPT.COM/c/abc?model=gpt-5', 'openai'],
      ['https://www.chatgpt.com', 'openai'],
      ['http://chatgpt.com:443/', 'openai'],
      ['//claude.ai/chat/1', 'anthropic'],
      ['claude.ai/new', 'anthropic'],
      ['https://gemini.google.com./app', 'google'],
      ['  https://perplexity.ai/search?q=x  ', 'perplexity'],
      ['https://user:pw@copilot.microsoft.com/', 'microsoft'],
      ['https://chatgpt.com@evil.example/', undefined],
      ['https://chatgpt.com.evil.example/', undefined],
      ['https://notchatgpt.com/', undefined],
      ['https://sub.chatgpt.example/', undefined],
      ['https://www.google.com/search?q=chatgpt.com', undefined],
      ['https://google.com/url?q=https://chatgpt.com/', undefined],
    ];
    for (const [referrer, platform] of cases) assert.equal(platformOf(referrer), platform, referrer);
  });

  test('path-based and app referrers', () => {
    const cases: [string, string | undefined][] = [
      ['x.com/i/grok', 'xai'],
      ['https://x.com/i/grok?conversation=1', 'xai'],
      ['https://x.com/i/grok/share/abc', 'xai'],
      ['https://www.x.com/i/grok#top', 'xai'],
      ['https://x.com/i/grokking', undefined],
      ['https://x.com/elonmusk/status/1', undefined],
      ['https://x.com/', undefined],
      ['https://example.com/i/grok', undefined],
      ['android-app://com.openai.chatgpt', 'openai'],
      ['android-app://com.openai.chatgpt/', 'openai'],
      ['ANDROID-APP://com.anthropic.claude/https/claude.ai', 'anthropic'],
      ['android-app://com.reddit.frontpage', undefined],
      ['android-app://com.google.android.gm', undefined],
      ['https://com.openai.chatgpt/', undefined],
    ];
    for (const [referrer, platform] of cases) assert.equal(platformOf(referrer), platform, referrer);
  });

  test('landing-URL parameters are compared whole, decoded and case-insensitively', () => {
    const cases: [string, string | undefined][] = [
      ['https://acme.com/?utm_source=chatgpt.com', 'openai'],
      ['https://acme.com/?UTM_SOURCE=ChatGPT.com', 'openai'],
      ['https://acme.com/?utm_source=chatgpt%2Ecom', 'openai'],
      ['https://acme.com/p?a=1&utm_source=openai&b=2', 'openai'],
      ['/pricing?utm_medium=x&utm_source=perplexity#plans', 'perplexity'],
      ['https://acme.com/?utm_source=claude.ai', 'anthropic'], // a value that is an AI referrer host
      ['https://acme.com/?referrer=grok.com', 'xai'],
      ['https://acme.com/?referrer=https%3A%2F%2Fgrok.com%2F', 'xai'],
      ['https://acme.com/?utm_source=gemini.studio&utm_campaign=gemini3_seo', undefined],
      ['https://acme.com/?utm_source=chatgpt-ads', undefined],
      ['https://acme.com/?utm_campaign=chatgpt.com', undefined],
      ['https://acme.com/?utm_source_x=chatgpt.com', undefined],
      ['https://acme.com/#utm_source=chatgpt.com', undefined],
      ['https://acme.com/?referrer=google.com', undefined],
      ['https://acme.com/?utm_source=%E0%A4%A', undefined],
      ['https://acme.com/?utm_source', undefined],
      ['https://chatgpt.com/', undefined], // the landing page's own host says nothing
    ];
    for (const [url, platform] of cases) assert.equal(platformOf(null, url), platform, url);
  });

  test('the referrer decides before the landing URL', () => {
    assert.equal(platformOf('https://claude.ai/', 'https://acme.com/?utm_source=chatgpt.com'), 'anthropic');
    assert.equal(platformOf('https://news.ycombinator.com/', 'https://acme.com/?utm_source=chatgpt.com'), 'openai');
  });

  test('junk never throws and is not AI', () => {
    for (const junk of ['', ' ', 'null', 'undefined', '://', 'http://', 'https://', '%%%', '\u0000', '\uD800', 'about:blank', '?', '#', '@', ':', '...', 'x'.repeat(100_000), `${'a.'.repeat(50_000)}com`, `https://${':1'.repeat(50_000)}`]) {
      assert.equal(classifyReferral(junk, junk), undefined, JSON.stringify(junk.slice(0, 40)));
    }
    assert.equal(classifyReferral(null, null), undefined);
    assert.equal(classifyReferral(undefined), undefined);
    assert.equal(classifyReferral(42 as unknown as string, {} as unknown as string), undefined);
  });
});

describe('classifyReferral properties', () => {
  const anyInput = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.constant(null), fc.constant(undefined));

  test('never throws, is deterministic, and answers only known platforms', () => {
    fc.assert(
      fc.property(anyInput, anyInput, (referrer, landing) => {
        const a = classifyReferral(referrer, landing);
        assert.deepEqual(classifyReferral(referrer, landing), a);
        if (a !== undefined) assert.equal(a.platformLabel, PLATFORMS[a.platform]);
      }),
      { numRuns: 1000 },
    );
  });

  test('every AI host is detected behind any scheme, path and query', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.entries(AI_REFERRER_HOSTS)),
        fc.constantFrom('', 'http://', 'https://', 'HTTPS://www.'),
        fc.webPath(),
        fc.option(fc.webQueryParameters(), { nil: undefined }),
        ([host, platform], scheme, path, query) => {
          assert.equal(platformOf(`${scheme}${host}${path}${query === undefined ? '' : `?${query}`}`), platform);
        },
      ),
    );
  });

  test('other domains are not AI', () => {
    fc.assert(
      fc.property(fc.domain(), fc.webPath(), (domain, path) => {
        fc.pre(!Object.hasOwn(AI_REFERRER_HOSTS, domain.replace(/^www\./, '')) && !AI_REFERRER_PATHS.some((p) => p.host === domain));
        assert.equal(classifyReferral(`https://${domain}${path}`), undefined);
      }),
    );
  });
});
