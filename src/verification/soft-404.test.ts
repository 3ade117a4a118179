import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createProbeCache, jaccard, MIN_WORDS_TO_COMPARE, probePath, resemblesProbe, saysNotFound, shingles, SIMILAR_TO_PROBE, visibleWords, type Probe } from './soft-404.ts';

const TEMPLATE = `<nav>Home Products Pricing Blog Docs About Contact</nav>
  <main><h2>Sorry</h2><p>We looked everywhere but this address leads nowhere on our site. Try the search box or go back to the start.</p></main>
  <footer>Acme Widgets Inc 2026 all rights reserved privacy terms cookies</footer>`;
const page = (body: string, title = 'Acme Widgets') => `<!doctype html><html><head><title>${title}</title><script>var x = "not found";</script></head><body>${body}</body></html>`;

describe('visibleWords', () => {
  test('drops scripts, styles, noscript, comments and tags; decodes entities; lower-cases', () => {
    const html = `<html><head><style>.a{color:red}</style><script>alert("hidden words")</script></head>
      <body><!-- a comment --><noscript>Enable JavaScript to run this app</noscript><p>Fish &amp; Chips&nbsp;&#8212; <b>Caf&#233;</b> d&#39;Or</p>
      <svg><text>chart label</text></svg><script src="x.js"></script></body></html>`;
    assert.deepEqual(visibleWords(html), ['fish', 'chips', 'café', 'd', 'or']);
  });
  test('an element cut off by the body cap is dropped to the end', () => {
    assert.deepEqual(visibleWords('<p>kept words</p><script>var cut = "off'), ['kept', 'words']);
  });
});

describe('shingles and jaccard', () => {
  test('3-word shingles; identical sets are 1, disjoint 0, partial overlap in between', () => {
    assert.deepEqual([...shingles(['a', 'b', 'c', 'd'])], ['a b c', 'b c d']);
    assert.equal(shingles(['a', 'b']).size, 0);
    const x = shingles('one two three four five'.split(' '));
    const y = shingles('one two three four six'.split(' '));
    assert.equal(jaccard(x, x), 1);
    assert.equal(jaccard(x, shingles('seven eight nine'.split(' '))), 0);
    assert.equal(jaccard(x, y), 2 / 4);
    assert.equal(jaccard(new Set(), new Set()), 0);
  });
});

describe('saysNotFound (title or first h1)', () => {
  test('the ways sites say a page is not there', () => {
    for (const html of [
      '<title>Page Not Found | Acme</title>',
      '<title>404</title>',
      '<title>Error 404 (Not Found)!!1</title>',
      '<title>404 - Page not found</title>',
      '<title>Acme: 404 error</title>',
      '<title>Not Found</title>',
      '<title>Oops! Page not found</title>',
      '<title>Acme</title><h1 class="x">Oops! That page can&rsquo;t be found.</h1>',
      '<h1>Sorry, this page doesn’t exist</h1>',
      '<h1>The page you requested could not be found</h1>',
      "<h1>We couldn't find that page</h1>",
      '<TITLE>Article not found &ndash; News</TITLE>',
    ]) assert.equal(saysNotFound(html), true, html);
  });
  test('pages about 404s, and not-found words elsewhere, do not count', () => {
    for (const html of [
      '<title>How to fix 404 errors</title>',
      '<title>Why free will doesn\'t exist</title>',
      '<title>Lost and found</title>',
      '<title>The 404 club</title>',
      '<title>Acme</title><h1>Pricing</h1><h1>Page not found</h1>', // only the first h1
      '<title>Acme</title><p>Page not found</p>',
      '<title>Acme</title><script>document.title = "Page not found"</script>',
      '<p>no title at all</p>',
    ]) assert.equal(saysNotFound(html), false, html);
  });
});

describe('resemblesProbe', () => {
  const answers = (html: string, finalUrl = 'https://acme.test/sightline-probe-1', redirected = false): Probe => ({ kind: 'answers', words: visibleWords(html), finalUrl, redirected });
  const at = (html: string, finalUrl = 'https://acme.test/some/page', redirected = false) => ({ html, finalUrl, redirected });

  test('the same template as the random path is a soft 404; a real page of that site is not', () => {
    const probe = answers(page(TEMPLATE));
    assert.equal(resemblesProbe(at(page(TEMPLATE)), probe), true);
    const article = `<article>${Array.from({ length: 120 }, (_, i) => `sentence ${i} about widget ${i * 7} pricing`).join(' ')}</article>`;
    assert.equal(resemblesProbe(at(page(TEMPLATE.replace('<main>', `<main>${article}`))), probe), false);
  });
  test(`similarity at the threshold (${SIMILAR_TO_PROBE}) counts, just below does not`, () => {
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`);
    const probe: Probe = { kind: 'answers', words, finalUrl: 'https://acme.test/p', redirected: false };
    // 100 words make 98 shingles; appending k new words adds k shingles the probe lacks: 98 / (98 + k).
    const similar = `<p>${[...words, 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8', 'x9'].join(' ')}</p>`; // 98 / 107 = 0.916
    const apart = `<p>${[...words, ...Array.from({ length: 12 }, (_, i) => `y${i}`)].join(' ')}</p>`; // 98 / 110 = 0.89
    assert.equal(resemblesProbe(at(similar), probe), true);
    assert.equal(resemblesProbe(at(apart), probe), false);
  });
  test('an app shell (too few words) is not compared, even when identical', () => {
    const shell = page('<div id="root"></div><noscript>You need to enable JavaScript to run this app.</noscript>');
    assert.ok(visibleWords(shell).length < MIN_WORDS_TO_COMPARE);
    assert.equal(resemblesProbe(at(shell), answers(shell)), false);
  });
  test('sent to the landing page the probe was sent to: soft 404; being that landing page: no evidence', () => {
    const probe = answers(page(TEMPLATE), 'https://acme.test/lost', true);
    const other = page('<p>completely different words on the lost and found landing page of the site</p>');
    assert.equal(resemblesProbe(at(other, 'https://acme.test/lost', true), probe), true);
    assert.equal(resemblesProbe(at(page(TEMPLATE), 'https://acme.test/lost', false), probe), false);
  });
  test('an honest site or a failed probe is no evidence', () => {
    assert.equal(resemblesProbe(at(page(TEMPLATE)), { kind: 'honest', status: 404 }), false);
    assert.equal(resemblesProbe(at(page(TEMPLATE)), undefined), false);
  });
});

test('probePath is a fresh unguessable path each time', () => {
  const a = probePath();
  assert.match(a, /^\/sightline-probe-[0-9a-f]{16}$/);
  assert.notEqual(a, probePath());
});

describe('createProbeCache', () => {
  const honest: Probe = { kind: 'honest', status: 404 };
  test('one probe per origin, shared by concurrent checks, kept for the TTL', async () => {
    let clock = 0;
    const cache = createProbeCache({ ttlMs: 1_000, now: () => clock });
    let calls = 0;
    const probe = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      return honest;
    };
    const results = await Promise.all([cache.get('https://a.test', probe), cache.get('https://a.test', probe), cache.get('https://a.test', probe)]);
    assert.deepEqual(results, [honest, honest, honest]);
    assert.equal(calls, 1);
    clock = 999;
    await cache.get('https://a.test', probe);
    assert.equal(calls, 1);
    clock = 2_000;
    await cache.get('https://a.test', probe);
    assert.equal(calls, 2);
    await cache.get('https://b.test', probe);
    assert.equal(calls, 3);
  });
  test('a failed probe (undefined or thrown) is not kept', async () => {
    const cache = createProbeCache();
    let calls = 0;
    assert.equal(await cache.get('https://a.test', async () => (calls++, undefined)), undefined);
    assert.equal(await cache.get('https://a.test', async () => (calls++, honest)), honest);
    assert.equal(calls, 2);
    await assert.rejects(cache.get('https://b.test', async () => Promise.reject(new Error('bug'))), /bug/);
    assert.equal(await cache.get('https://b.test', async () => honest), honest);
  });
  test('bounded: the least recently used origin goes first', async () => {
    const cache = createProbeCache({ maxOrigins: 2 });
    const calls: string[] = [];
    const get = (origin: string) => cache.get(origin, async () => (calls.push(origin), honest));
    await get('a');
    await get('b');
    await get('a');
    await get('c'); // evicts b
    await get('a');
    await get('b');
    assert.deepEqual(calls, ['a', 'b', 'c', 'b']);
  });
});
