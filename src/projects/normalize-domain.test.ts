import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { normalizeDomain } from './normalize-domain.ts';

describe('normalizeDomain', () => {
  test('turns what people paste into a bare host', () => {
    for (const [input, expected] of [
      ['acme.com', 'acme.com'],
      ['Acme.COM', 'acme.com'],
      ['https://www.acme.com/pricing?x=1', 'acme.com'],
      ['http://docs.acme.co.uk:8080/', 'docs.acme.co.uk'],
      ['www.acme.com.', 'acme.com'],
      ['  acme.io  ', 'acme.io'],
    ] as const) {
      assert.equal(normalizeDomain(input), expected, input);
    }
  });

  test('refuses what is not a domain name', () => {
    for (const input of ['', 'localhost', 'acme', 'http://', '-acme.com', 'acme-.com', 'ac me.com', '1.2.3.4', 'a..com', 'acme.com@evil']) {
      assert.throws(() => normalizeDomain(input), /not a domain name/, input);
    }
  });

  test('is idempotent and never returns a scheme, path, port or leading www.', () => {
    fc.assert(
      fc.property(fc.domain(), fc.constantFrom('', 'http://', 'https://', 'HTTPS://www.'), fc.constantFrom('', '/', '/a/b?c=d', ':443'), (domain, prefix, suffix) => {
        let out: string;
        try {
          out = normalizeDomain(prefix + domain + suffix);
        } catch {
          return; // fast-check's domains include single-label and numeric TLD forms we refuse
        }
        assert.equal(normalizeDomain(out), out);
        assert.doesNotMatch(out, /[/:?#A-Z]|^www\./);
      }),
    );
  });
});
