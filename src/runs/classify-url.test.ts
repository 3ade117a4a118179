import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classifyArticleType, classifySourceType, registrableDomain } from './classify-url.ts';

describe('registrableDomain', () => {
  test('groups subdomains under the registrable domain, public suffixes included', () => {
    assert.equal(registrableDomain('docs.acme.com'), 'acme.com');
    assert.equal(registrableDomain('www.acme.com'), 'acme.com');
    assert.equal(registrableDomain('shop.acme.co.uk'), 'acme.co.uk');
    assert.equal(registrableDomain('en.wikipedia.org'), 'wikipedia.org');
    assert.equal(registrableDomain('127.0.0.1'), '127.0.0.1');
  });
});

describe('classifyArticleType', () => {
  const cases: [string, string][] = [
    ['https://www.youtube.com/watch?v=abc', 'video'],
    ['https://vimeo.com/12345', 'video'],
    ['https://www.reddit.com/r/sales/comments/x', 'forum'],
    ['https://community.acme.com/t/help', 'forum'],
    ['https://www.g2.com/products/acme/reviews', 'review'],
    ['https://blog.example.com/acme-review', 'review'],
    ['https://globex.com/globex-vs-acme', 'comparison'],
    ['https://example.com/acme-alternatives', 'comparison'],
    ['https://example.com/blog/best-crm-tools', 'listicle'],
    ['https://example.com/top-10-crm', 'listicle'],
    ['https://docs.acme.com/start', 'docs'],
    ['https://acme.com/help/billing', 'docs'],
    ['https://techcrunch.com/2026/10/02/acme-raises', 'news'],
    ['https://acme.com/press/launch', 'news'],
    ['https://acme.com/blog/checklist', 'blog'],
    ['https://medium.com/@someone/thoughts', 'blog'],
    ['https://acme.com/', 'homepage'],
    ['https://acme.com/en-us/', 'homepage'],
    ['https://acme.com/pricing', 'other'],
  ];
  for (const [url, type] of cases) {
    test(`${url} is ${type}`, () => assert.equal(classifyArticleType(url), type));
  }
});

describe('classifySourceType', () => {
  const brand = 'acme.com';
  const competitors = ['globex.com', 'initech.io'];
  const cases: [string, string][] = [
    ['acme.com', 'owned'],
    ['globex.com', 'competitor'],
    ['initech.io', 'competitor'],
    ['nytimes.com', 'editorial'],
    ['reddit.com', 'ugc'],
    ['g2.com', 'review'],
    ['linkedin.com', 'social'],
    ['salesforce.com', 'corporate'],
    ['nih.gov', 'institutional'],
    ['mit.edu', 'institutional'],
    ['ox.ac.uk', 'institutional'],
    ['some-blog.net', 'other'],
  ];
  for (const [domain, type] of cases) {
    test(`${domain} is ${type}`, () => assert.equal(classifySourceType(domain, brand, competitors), type));
  }
});
