import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { pathOf } from './path-of.ts';
import { MAX_PATH_BYTES } from './traffic-limits.ts';

describe('pathOf', () => {
  test('the path without query or fragment, from a target or a URL', () => {
    const cases: [string | undefined, string][] = [
      [undefined, '/'],
      ['', '/'],
      ['/a/b?c=1#d', '/a/b'],
      ['a/b', '/a/b'],
      ['https://acme.com/pricing?x=1', '/pricing'],
      ['https://acme.com', '/'],
      ['https://[bad', '/'],
      ['*', '/*'],
    ];
    for (const [target, path] of cases) assert.equal(pathOf(target), path, String(target));
  });

  test('what PostgreSQL text cannot hold becomes U+FFFD: NUL, lone surrogates', () => {
    assert.equal(pathOf('/a\u0000b'), '/a\uFFFDb');
    assert.equal(pathOf('/a\ud800b\udc00'), '/a\uFFFDb\uFFFD');
    assert.equal(pathOf('/\ud83d\ude00'), '/\ud83d\ude00', 'a pair is kept');
    assert.equal(pathOf('https://acme.com/a\u0000b'), '/a%00b', 'a URL percent-encodes');
  });

  test('at most MAX_PATH_BYTES of UTF-8, cut between characters', () => {
    assert.equal(pathOf(`/${'a'.repeat(2_000)}`).length, MAX_PATH_BYTES);
    const cjk = pathOf(`/${'語'.repeat(1_000)}`);
    assert.equal(Buffer.byteLength(cjk), 1 + 333 * 3);
    const emoji = pathOf(`/${'\ud83d\ude00'.repeat(400)}`);
    assert.ok(emoji.isWellFormed() && Buffer.byteLength(emoji) === 1 + 249 * 4);
  });

  test('always a clean path that starts with /, whatever the input (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 3_000 }), fc.string({ unit: 'binary', maxLength: 1_500 }), fc.string({ unit: fc.constantFrom('\u0000', '\ud800', '\udfff', '語', '/', '?', 'a'), maxLength: 2_000 })), (target) => {
        const path = pathOf(target);
        assert.ok(path.startsWith('/'));
        assert.ok(path.isWellFormed() && !path.includes('\u0000'));
        assert.ok(Buffer.byteLength(path) <= MAX_PATH_BYTES);
      }),
      { numRuns: 200 },
    );
  });
});
