import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { col, readTsv } from '../../test/agents-corpus.ts';
import { buildRegistry } from './build-registry.ts';
import { CRAWLERS, PLATFORMS, REGISTRY_OVERLAY, REGISTRY_SCHEMA_VERSION, ROBOTS_TXT_TOKENS, UPSTREAM_AGENTS } from './crawler-registry.ts';
import { matchCrawler } from './match-crawler.ts';

/** Names in ai.robots.txt that are ordinary words or software names; never matched on their own. */
const GENERIC_NAMES = ['spider', 'code', 'cursor', 'openai', 'lcc', 'trae', 'scrapy', 'gemini', 'bot', 'agent'];

const ROBOTS_JSON: Record<string, unknown> = JSON.parse(readFileSync(new URL('./vendor/ai-robots-txt/robots.json', import.meta.url), 'utf8'));

/** User agents that name an agent the ways real ones do: inside `compatible;`, in a Chrome UA, as the product. */
function realisticUserAgents(name: string): string[] {
  const product = /[/ ]v?\d+(\.\d+)*$/.test(name) ? name : `${name}/1.0`;
  return [
    `Mozilla/5.0 (compatible; ${product}; +https://example.com/bot)`,
    `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ${product}; +https://example.com/bot) Chrome/131.0.0.0 Safari/537.36`,
    `${product} (+https://example.com/bot.html)`,
  ];
}

describe('crawler registry', () => {
  test('schema version and shape', () => {
    assert.equal(REGISTRY_SCHEMA_VERSION, 1);
    assert.ok(CRAWLERS.every((c) => c.matchCase === undefined || c.matchCase === true));
    assert.ok(CRAWLERS.length > 50);
    for (const c of CRAWLERS) {
      assert.ok(c.name.trim() !== '' && c.name === c.name.trim(), `name "${c.name}"`);
      assert.equal(c.token, c.name.toLowerCase(), `${c.name}: token is the lower-cased name`);
      assert.ok(['training', 'search', 'user', 'agent'].includes(c.purpose), `${c.name}: purpose ${c.purpose}`);
      assert.ok(Object.hasOwn(PLATFORMS, c.platform), `${c.name}: platform ${c.platform} not in PLATFORMS`);
      assert.equal(c.platformLabel, PLATFORMS[c.platform], `${c.name}: label`);
      assert.match(c.platform, /^[a-z0-9]+$/, `${c.name}: platform key`);
    }
  });

  test('tokens are unique, lowercase and never a generic word', () => {
    const tokens = CRAWLERS.map((c) => c.token);
    assert.equal(new Set(tokens).size, tokens.length, 'duplicate token');
    for (const t of tokens) {
      assert.equal(t, t.toLowerCase());
      assert.ok(!GENERIC_NAMES.includes(t), `generic token ${t}`);
    }
  });

  test('every platform has a non-empty label; every bot is reachable by its own name', () => {
    for (const [key, label] of Object.entries(PLATFORMS)) assert.ok(label.trim() !== '', key);
    for (const c of CRAWLERS) {
      assert.equal(matchCrawler(c.name), c, `${c.name} alone`);
      assert.equal(matchCrawler(`Mozilla/5.0 (compatible; ${c.name}/1.0; +https://example.org/bot)`), c, `${c.name} in a UA`);
    }
  });

  test('the registry cannot be mutated by a caller', () => {
    assert.ok(Object.isFrozen(CRAWLERS) && Object.isFrozen(PLATFORMS) && CRAWLERS.every((c) => Object.isFrozen(c)));
  });
});

describe('matchCrawler on the corpus', () => {
  test('ai_crawler_uas.tsv: every row matches the expected bot and platform (recall)', () => {
    const rows = readTsv('ai_crawler_uas.tsv');
    const misses: string[] = [];
    for (const row of rows) {
      const [ua, name, platform] = [col(row, 0), col(row, 1), col(row, 2)];
      const got = matchCrawler(ua);
      if (got?.name.toLowerCase() !== name.toLowerCase() || got.platform !== platform) {
        misses.push(`${ua} -> ${got ? `${got.name}/${got.platform}` : 'no match'} (expected ${name}/${platform})`);
      }
    }
    const recall = (rows.length - misses.length) / rows.length;
    console.log(`ai_crawler_uas.tsv recall: ${rows.length - misses.length}/${rows.length} = ${(recall * 100).toFixed(2)}%`);
    assert.ok(rows.length >= 140, `corpus has ${rows.length} rows`);
    assert.deepEqual(misses, []);
  });

  test('non_ai_uas.tsv: no row matches (false positives)', () => {
    const rows = readTsv('non_ai_uas.tsv');
    const falsePositives = rows
      .map((row) => [col(row, 0), matchCrawler(col(row, 0))] as const)
      .filter(([, got]) => got !== undefined)
      .map(([ua, got]) => `${ua} -> ${got?.name}`);
    console.log(`non_ai_uas.tsv false positives: ${falsePositives.length}/${rows.length}`);
    assert.ok(rows.length >= 100, `corpus has ${rows.length} rows`);
    assert.deepEqual(falsePositives, []);
  });

  // The file asks not to score these pass/fail: only no crash, determinism and no generic-token match.
  test('ambiguous_uas.tsv: no crash, deterministic, generic tokens do not match', () => {
    const rows = readTsv('ambiguous_uas.tsv');
    assert.ok(rows.length > 0);
    const first = rows.map((row) => matchCrawler(col(row, 0)));
    const reversed = [...rows].reverse().map((row) => matchCrawler(col(row, 0))).reverse();
    assert.deepEqual(reversed, first);
    for (const row of rows) {
      const candidate = col(row, 1).toLowerCase();
      if (GENERIC_NAMES.includes(candidate)) assert.equal(matchCrawler(col(row, 0)), undefined, `${candidate}: ${col(row, 0)}`);
    }
    // The rows whose candidate name is a generic token are really there (Code, Trae, OpenAI, Scrapy).
    assert.ok(rows.filter((row) => GENERIC_NAMES.includes(col(row, 1).toLowerCase())).length >= 4);
  });

  // Decision: matchCrawler reports what the UA claims. A spoofed or fixture string naming a real bot
  // in a real bot's token form matches that bot (only an IP/reverse-DNS check can tell, and that is a
  // different step); a string naming a bot that does not exist matches nothing.
  test('ai_crawler_uas_unverified.tsv: claimed real bots match by UA, invented names do not', () => {
    const rows = readTsv('ai_crawler_uas_unverified.tsv');
    const registryNames = new Set(CRAWLERS.map((c) => c.name.toLowerCase()));
    const unmatched = new Set<string>();
    for (const row of rows) {
      const [ua, name, platform] = [col(row, 0), col(row, 1), col(row, 2)];
      const got = matchCrawler(ua);
      if (registryNames.has(name.toLowerCase())) {
        assert.equal(got?.name.toLowerCase(), name.toLowerCase(), ua);
        assert.equal(got?.platform, platform, ua);
      } else {
        assert.equal(got, undefined, ua);
        unmatched.add(name);
      }
    }
    // Pinned so that adding one of these to the registry is a deliberate decision.
    assert.deepEqual(
      [...unmatched].sort(),
      [
        'Anthropic-Claude', 'Bard-AI', 'ChatGPT-Browser', 'Character-AI', 'Cohere-Command', 'Gemini-AI', 'Google-Extended',
        'GoogleAgent-Search', 'GrokBot', 'Groq-Bot', 'HuggingFace-Bot', 'PerplexityUser', 'Replicate-Bot',
        'RunPod-Bot', 'Together-Bot', 'xAI-Bot', 'xAI-SearchBot',
      ].sort(),
    );
  });
});

describe('matchCrawler decisions and hard negatives', () => {
  test('hard negatives: Exabot/Alexabot, spiders, Gemini phones, classic search crawlers', () => {
    for (const ua of [
      'Mozilla/5.0 (compatible; Exabot/3.0; +http://www.exabot.com/go/robot)',
      'Mozilla/5.0 (compatible; Alexabot/1.0; +http://www.alexa.com/help/certifyscan; certifyscan@alexa.com)',
      'Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)',
      'Sogou web spider/4.0',
      'Screaming Frog SEO Spider/5.1',
      'Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36 Gemini',
      'Mozilla/5.0 (Linux; Android 7.1.1; Gemini Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.3904.108 Mobile Safari/537.36',
      'Mozilla/5.0 (Linux; Android 8.1.0; Gemini_4G) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.73 Mobile Safari/537.36',
      'Mozilla/5.0 (iPhone; CPU iPhone OS 26_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GoogleWv/1.0 (WKWebView) GeminiiOS/1.2026.2270600',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Googlebot-Image/1.0',
      'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
      'DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)',
      'Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'OpenAI/JS 4.77.0',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Code/1.115.0 Chrome/142.0.7444.265 Electron/39.8.5 Safari/537.36',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/1.2.0 Chrome/132.0.0.0 Electron/34.0.0 Safari/537.36',
      'LCC/1.0',
      'Applebot-Extended',
      'Google-Extended',
      'WordPress/6.2.3; https://kimiyo.tw',
      'Iframely/1.3.1 (+https://iframely.com/docs/about) Atlassian',
    ]) {
      assert.equal(matchCrawler(ua), undefined, ua);
    }
  });

  test('token boundaries: ASCII letters and digits, `.`, `_` and `-` continue a name; anything else (non-ASCII included) separates', () => {
    const gptbot = CRAWLERS.find((c) => c.name === 'GPTBot');
    for (const ua of ['GPTBot', 'GPTBot/1.2', '(GPTBot)', 'compatible; GPTBot;', '+gptbot@openai.com', 'GPTBOT', 'x GPTBot\t', 'a/GPTBot', 'é GPTBot', 'ÄGPTBotÄ']) {
      assert.equal(matchCrawler(ua), gptbot, ua);
    }
    for (const ua of ['xGPTBot', 'GPTBotx', 'GPTBot2', '2GPTBot', 'my-GPTBot', 'GPTBot-Test', 'GPTBot_1', '_GPTBot', 'www.gptbot.com', 'openai.com/gptbot.']) {
      assert.equal(matchCrawler(ua), undefined, ua);
    }
  });

  test('the most specific token wins; across positions the leftmost', () => {
    const cases: [string, string | undefined][] = [
      ['Mozilla/5.0 (compatible) Ai2Bot-Dolma (+https://www.allenai.org/crawler)', 'Ai2Bot-Dolma'],
      ['GoogleOther-Image/1.0', 'GoogleOther-Image'],
      ['Mozilla/5.0 (compatible; YandexAdditionalBot/1.0; +http://yandex.com/bots)', 'YandexAdditionalBot'],
      ['omgilibot/0.3 +http://www.omgili.com/Crawler.html', 'omgilibot'],
      ['Mozilla/5.0 (compatible; OAI-SearchBot/1.3; +https://openai.com/searchbot)', 'OAI-SearchBot'],
      ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexitybot-user)', 'Perplexity-User'],
      ['Claude-User (claude-code/2.1.86; +https://support.anthropic.com/)', 'Claude-User'],
      ['claude-code/2.1.107 (cli)', 'Claude-Code'],
      ['Mozilla/5.0 (compatible; Kangaroo Bot/1.0; +http://www.kangaroo.com)', 'Kangaroo Bot'],
      ['Mozilla/5.0 (compatible; bigsur.ai/1.0)', 'bigsur.ai'],
      ['Snap/1.0 (+https://www.diffbot.com/dev/docs/crawl/)', undefined], // a host is not a bot name
      ['Doximity-Diffbot', undefined],
    ];
    for (const [ua, name] of cases) assert.equal(matchCrawler(ua)?.name, name, ua);
  });

  test('what the UA claims is what matches: a spoofed GPTBot is GPTBot (verification is by IP, elsewhere)', () => {
    const spoofed = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_4 like Mac OS X) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.6670.150 Mobile Safari/537.36; compatible; GPTBot/1.4; +https://openai.com/gptbot';
    assert.equal(matchCrawler(spoofed)?.name, 'GPTBot');
  });

  test('contested entries are counted with the purpose chosen in the registry', () => {
    const purposeOf = (ua: string) => matchCrawler(ua)?.purpose;
    assert.equal(purposeOf('Mozilla/5.0 (compatible; Applebot/0.1; +http://www.apple.com/go/applebot)'), 'search');
    assert.equal(purposeOf('Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GoogleOther) Chrome/117.0.5938.132 Safari/537.36'), 'training');
    assert.equal(purposeOf('Mozilla/5.0 (compatible;PetalBot;+https://webmaster.petalsearch.com/site/petalbot)'), 'search');
    assert.equal(purposeOf('Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.0.0 Safari/537.36'), 'training');
    assert.equal(purposeOf('Mozilla/5.0 (compatible; Novaact/1.0; +https://www.novaact.com)'), 'agent'); // case-insensitive NovaAct
  });

  test('never throws on odd input and is fast on huge input', () => {
    for (const ua of ['', ' ', '\u0000', '\uD800', '\uFFFF'.repeat(1000), '(((((((', '\\', '$&', '.*']) assert.equal(matchCrawler(ua), undefined, JSON.stringify(ua));
    assert.equal(matchCrawler(undefined as unknown as string), undefined);
    assert.equal(matchCrawler(42 as unknown as string), undefined);
    const huge = `${'Mozilla/5.0 (X11; Linux x86_64) '.repeat(32_768)}ClaudeBot/1.0`; // ~1 MiB
    const start = performance.now();
    assert.equal(matchCrawler(huge)?.name, 'ClaudeBot');
    const ms = performance.now() - start;
    console.log(`matchCrawler on ${huge.length} characters: ${ms.toFixed(1)} ms`);
    assert.ok(ms < 1000, `${ms} ms`);
  });
});

describe('matchCrawler properties', () => {
  test('never throws and is deterministic on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-composite' })), (ua) => {
        const a = matchCrawler(ua);
        const b = matchCrawler(ua);
        assert.equal(a, b);
        if (a !== undefined) assert.ok(CRAWLERS.includes(a));
      }),
      { numRuns: 1000 },
    );
  });

  // `q`, `z` and the separators cannot spell any token, so the only bot in the string is the one inserted.
  const filler = fc.string({ unit: fc.constantFrom('q', 'z', ' ', ';', '(', ')', '/', '+', ','), maxLength: 30 });
  const separator = fc.constantFrom(' ', ';', '(', ')', '/', '+', ',', '\t');

  test('a registry name between separators is found anywhere in a UA', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CRAWLERS), filler, separator, separator, filler, (c, pre, s1, s2, post) => {
        assert.equal(matchCrawler(pre + s1 + c.name + s2 + post), c);
        assert.equal(matchCrawler(pre + s1 + c.name.toUpperCase() + s2 + post), c.matchCase ? undefined : c);
      }),
    );
  });

  test('a registry name glued to other name characters matches nothing', () => {
    const glue = fc.string({ unit: fc.constantFrom('q', 'z', '1', '9', '.', '_', '-'), maxLength: 5 });
    fc.assert(
      fc.property(fc.constantFrom(...CRAWLERS), glue, glue, (c, pre, post) => {
        fc.pre(pre !== '' || post !== '');
        assert.equal(matchCrawler(pre + c.name + post), undefined, pre + c.name + post);
      }),
    );
  });
});

describe('the ai.robots.txt agent list (vendor/ai-robots-txt/robots.json)', () => {
  test('regression: 68 of the 166 ai.robots.txt agents named in a user agent were not recognised', () => {
    const names = Object.keys(ROBOTS_JSON);
    assert.equal(names.length, 166);
    assert.deepEqual(UPSTREAM_AGENTS.map((a) => a.name), names, 'every upstream name has a verdict, in order');
    const matched = UPSTREAM_AGENTS.filter((a) => a.status === 'matched');
    const missed: string[] = [];
    for (const agent of matched) {
      for (const ua of realisticUserAgents(agent.name)) if (matchCrawler(ua)?.token !== agent.token) missed.push(`${agent.name}: ${ua} -> ${matchCrawler(ua)?.name}`);
    }
    console.log(`ai.robots.txt: ${matched.length}/${names.length} names matched in user agents, ${ROBOTS_TXT_TOKENS.length} robots.txt-only, ${UPSTREAM_AGENTS.filter((a) => a.status === 'not-matched').length} not matched`);
    assert.deepEqual(missed, []);
    assert.equal(matched.length, 156);
    for (const name of ['ChatGPT Agent', 'Operator', 'NotebookLM', 'ExaBot', 'kagi-fetcher', 'Bravebot', 'CloudVertexBot', 'Crawl4AI', 'Brightbot 1.0', 'iaskspider/2.0', 'Meta-ExternalAgent']) {
      assert.ok(matched.some((a) => a.name === name), name);
    }
  });

  test('robots.txt-only tokens are listed as such and never matched', () => {
    assert.deepEqual(ROBOTS_TXT_TOKENS.map((t) => [t.name, t.platform, t.token]), [['Applebot-Extended', 'apple', 'applebot-extended'], ['Google-Extended', 'google', 'google-extended']]);
    for (const token of ROBOTS_TXT_TOKENS) {
      assert.equal(token.platformLabel, PLATFORMS[token.platform]);
      assert.ok(!CRAWLERS.some((c) => c.token === token.token));
      for (const ua of realisticUserAgents(token.name)) assert.equal(matchCrawler(ua), undefined, ua);
    }
  });

  // Pinned so that not matching an upstream name is a deliberate decision, with its reason.
  test('the upstream names not matched are these, each with a reason, and a UA naming them matches nothing', () => {
    const notMatched = UPSTREAM_AGENTS.filter((a) => a.status === 'not-matched');
    assert.deepEqual(notMatched.map((a) => a.name).sort(), ['Code', 'Cursor', 'LCC', 'OpenAI', 'Scrapy', 'Spider', 'Trae', 'facebookexternalhit'].sort());
    for (const agent of notMatched) {
      assert.ok((agent.note ?? '').length > 10, agent.name);
      for (const ua of realisticUserAgents(agent.name)) assert.equal(matchCrawler(ua), undefined, ua);
    }
  });

  test('ExaBot is matched only as written: Exalead search is Exabot', () => {
    assert.equal(matchCrawler('Mozilla/5.0 (compatible; ExaBot/1.0; +https://exa.ai/bot)')?.platform, 'exa');
    assert.equal(matchCrawler('Mozilla/5.0 (compatible; Exabot/3.0; +http://www.exabot.com/go/robot)'), undefined);
    assert.equal(matchCrawler('Mozilla/5.0 (compatible; EXABOT/3.0)'), undefined);
  });

  test('a new upstream agent is matched without an edit: platform other, a purpose from its description; versions and case variants fold', () => {
    const next = {
      ...ROBOTS_JSON,
      'Brand-New-Agent': { operator: 'Unclear at this time.', function: 'AI Assistants', description: '' },
      'brand-new-agent': { function: 'AI Assistants' },
      'Brand-New-Agent/2.0': { function: 'AI Assistants' },
      'FreshScraper': { function: 'AI Data Scrapers' },
      'FreshIndexer 1.0': { function: 'AI Search Crawlers' },
    };
    const registry = buildRegistry(next, REGISTRY_OVERLAY);
    const find = (token: string) => registry.crawlers.find((c) => c.token === token);
    assert.deepEqual(find('brand-new-agent'), { name: 'Brand-New-Agent', platform: 'other', platformLabel: PLATFORMS.other, token: 'brand-new-agent', purpose: 'user' });
    assert.equal(find('freshscraper')?.purpose, 'training');
    assert.equal(find('freshindexer 1.0')?.purpose, 'search', 'a version of nothing listed keeps its whole name');
    assert.equal(registry.crawlers.filter((c) => c.token.startsWith('brand-new-agent')).length, 1);
    assert.deepEqual(
      registry.upstream.filter((a) => a.token === 'brand-new-agent').map((a) => [a.name, a.note]),
      [['Brand-New-Agent', undefined], ['brand-new-agent', 'another spelling of Brand-New-Agent'], ['Brand-New-Agent/2.0', 'a version of brand-new-agent']],
    );
    assert.equal(registry.crawlers.length, CRAWLERS.length + 3);
    assert.throws(() => buildRegistry([], REGISTRY_OVERLAY), /not an object/);
    assert.throws(() => buildRegistry({ ' padded': {} }, REGISTRY_OVERLAY), /blank or padded/);
    assert.throws(() => buildRegistry(ROBOTS_JSON, { ...REGISTRY_OVERLAY, curated: { x: { name: 'X', platform: 'nowhere', purpose: 'user' } } }), /nowhere/);
  });

  test('our own names (absent upstream) stay, and every curated name is used', () => {
    for (const token of REGISTRY_OVERLAY.ownNames) assert.ok(CRAWLERS.some((c) => c.token === token), token);
    const upstreamTokens = new Set(UPSTREAM_AGENTS.map((a) => a.token));
    for (const token of Object.keys(REGISTRY_OVERLAY.curated)) {
      assert.ok(upstreamTokens.has(token) || REGISTRY_OVERLAY.ownNames.includes(token), `${token} is curated but neither upstream nor ours`);
    }
  });
});
