import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { normalizeUrl } from './normalize-url.ts';

describe('normalizeUrl: one identity per cited page', () => {
  test('the variants engines produce of one page are one URL', () => {
    const page = 'https://acme.com/pricing';
    for (const variant of [
      'https://acme.com/pricing',
      'https://acme.com/pricing?utm_source=chatgpt.com',
      'https://ACME.com/pricing#plans',
      'https://acme.com/pricing/',
      'https://acme.com:443/pricing?utm_medium=ai&utm_campaign=x&gclid=1&fbclid=2&ref=perplexity&ref_src=twsrc',
      'HTTPS://acme.com/pricing//',
    ]) {
      assert.equal(normalizeUrl(variant), page, variant);
    }
  });

  test('meaningful query parameters stay, in their order and encoding', () => {
    assert.equal(normalizeUrl('https://shop.example/item?id=42&utm_source=chatgpt.com&color=red'), 'https://shop.example/item?id=42&color=red');
    assert.equal(normalizeUrl('https://example.com/search?q=a%20b&page=2'), 'https://example.com/search?q=a%20b&page=2');
    assert.notEqual(normalizeUrl('https://example.com/item?id=1'), normalizeUrl('https://example.com/item?id=2'));
  });

  test('the root keeps its slash; paths keep their case; other hosts stay other', () => {
    assert.equal(normalizeUrl('https://acme.com'), 'https://acme.com/');
    assert.equal(normalizeUrl('https://acme.com/?utm_source=x'), 'https://acme.com/');
    assert.notEqual(normalizeUrl('https://acme.com/Docs'), normalizeUrl('https://acme.com/docs'));
    assert.notEqual(normalizeUrl('https://www.acme.com/a'), normalizeUrl('https://acme.com/a'));
  });

  test('what is not an absolute http(s) URL has no identity', () => {
    for (const bad of ['acme.com/pricing', 'ftp://acme.com/file', 'mailto:a@acme.com', 'https://', '']) assert.equal(normalizeUrl(bad), undefined, bad);
  });

  test('property: idempotent, and blind to tracking parameters and fragments', () => {
    const segment = fc.stringMatching(/^[a-zA-Z0-9_-]{1,8}$/);
    const param = fc.tuple(fc.stringMatching(/^[a-z]{1,6}$/).filter((n) => n !== 'ref' && n !== 'spm'), fc.stringMatching(/^[a-zA-Z0-9]{0,6}$/));
    const tracking = fc.tuple<[string, string]>(fc.constantFrom<string>('utm_source', 'utm_medium', 'UTM_Campaign', 'gclid', 'fbclid', 'ref', 'ref_src', 'msclkid'), fc.stringMatching(/^[a-z0-9.]{1,10}$/));
    fc.assert(
      fc.property(
        fc.constantFrom('http', 'https'),
        fc.constantFrom('acme.com', 'Docs.Example.ORG', 'a.b.c.io'),
        fc.array(segment, { maxLength: 4 }),
        fc.array(param, { maxLength: 3 }),
        fc.array(tracking, { maxLength: 3 }),
        fc.boolean(),
        fc.option(segment),
        (scheme, host, path, params, trackers, slash, fragment) => {
          const base = `${scheme}://${host}/${path.join('/')}${slash && path.length ? '/' : ''}`;
          const query = (pairs: [string, string][]) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : '');
          const plain = normalizeUrl(base + query(params));
          assert.ok(plain);
          assert.equal(normalizeUrl(plain), plain, 'idempotent');
          const mixed = [...params, ...trackers].sort(() => 0);
          const noisy = base + query([...trackers.slice(0, 1), ...mixed.filter((p) => !trackers.slice(0, 1).includes(p))]) + (fragment ? `#${fragment}` : '');
          assert.equal(normalizeUrl(noisy), plain, noisy);
        },
      ),
      { numRuns: 300 },
    );
  });
});
