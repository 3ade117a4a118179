import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseRunLine } from './parse-run-line.ts';

const valid = { engine: 'chatgpt', prompt: 'best crm', ranAt: '2026-11-01T09:00:00Z', status: 'ok' };

describe('parseRunLine', () => {
  test('accepts the documented record and fills the defaults', () => {
    const parsed = parseRunLine(JSON.stringify(valid));
    assert.ok(parsed.ok);
    assert.equal(parsed.record.day, '2026-11-01');
    assert.equal(parsed.record.branded, false);
    assert.equal(parsed.record.location, '');
    assert.equal(parsed.record.mentions, undefined);
    assert.deepEqual(parsed.record.citations, []);
  });

  test('the run day is the UTC date of ranAt', () => {
    const parsed = parseRunLine(JSON.stringify({ ...valid, ranAt: '2026-11-01T23:30:00-02:00' }));
    assert.ok(parsed.ok);
    assert.equal(parsed.record.day, '2026-11-02');
  });

  test('citation status defaults to unchecked; mention count to 1; sentiment absent stays absent', () => {
    const parsed = parseRunLine(
      JSON.stringify({ ...valid, mentions: [{ subject: 'Acme', position: 1 }], citations: [{ url: 'https://Acme.com/x#frag' }] }),
    );
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.record.mentions, [{ subject: 'Acme', position: 1, sentiment: undefined, count: 1 }]);
    assert.deepEqual(parsed.record.citations, [{ url: 'https://acme.com/x', rawUrl: 'https://acme.com/x', status: 'unchecked', articleType: undefined }]);
  });

  test('a cited URL is kept by its identity (normalize-url.ts) and as first given, for display', () => {
    const parsed = parseRunLine(JSON.stringify({ ...valid, citations: [{ url: 'https://Acme.com/pricing/?utm_source=chatgpt.com#plans' }] }));
    assert.ok(parsed.ok);
    assert.equal(parsed.record.citations[0]!.url, 'https://acme.com/pricing');
    assert.equal(parsed.record.citations[0]!.rawUrl, 'https://acme.com/pricing/?utm_source=chatgpt.com');
  });

  for (const [name, change, reason] of [
    ['a missing engine', { engine: undefined }, /engine/],
    ['an unknown engine', { engine: 'bing' }, /engine/],
    ['a missing prompt', { prompt: undefined }, /prompt/],
    ['a blank prompt', { prompt: '   ' }, /prompt/],
    ['a ranAt without a zone', { ranAt: '2026-11-01T09:00:00' }, /ranAt/],
    ['a date-only ranAt', { ranAt: '2026-11-01' }, /ranAt/],
    ['an impossible ranAt', { ranAt: '2026-02-31T09:00:00Z' }, /ranAt/],
    ['an unknown status', { status: 'error' }, /status/],
    ['a non-UUID id', { id: '42' }, /id/],
    ['a non-boolean branded', { branded: 'yes' }, /branded/],
    ['a sentiment over 100', { mentions: [{ subject: 'Acme', sentiment: 101 }] }, /sentiment/],
    ['a position of 0', { mentions: [{ subject: 'Acme', position: 0 }] }, /position/],
    ['a fractional count', { mentions: [{ subject: 'Acme', count: 1.5 }] }, /count/],
    ['a mention without subject', { mentions: [{ position: 1 }] }, /subject/],
    ['a relative citation URL', { citations: [{ url: '/pricing' }] }, /url/],
    ['a non-http citation URL', { citations: [{ url: 'ftp://acme.com/x' }] }, /url/],
    ['an unknown citation status', { citations: [{ url: 'https://acme.com', status: 'ok' }] }, /status/],
    ['an unknown article type', { citations: [{ url: 'https://acme.com', articleType: 'essay' }] }, /articleType/],
    ['mentions that are not a list', { mentions: 'Acme' }, /mentions/],
    ['an ad without advertiser', { ads: [{ url: 'https://rival.com' }] }, /advertiser/],
  ] as const) {
    test(`rejects ${name} with a reason`, () => {
      const parsed = parseRunLine(JSON.stringify({ ...valid, ...change }));
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.message, reason);
    });
  }

  // One bad line aborted a whole import: everything PostgreSQL would refuse is refused per line.
  for (const [name, change, reason] of [
    ['a NUL character in the prompt', { prompt: 'best\u0000crm' }, /NUL/],
    ['a NUL character in the answer', { answer: 'Acme\u0000' }, /NUL/],
    ['a NUL character in a topic', { topic: '\u0000' }, /NUL/],
    ['a NUL character in a mention', { mentions: [{ subject: 'Ac\u0000me' }] }, /NUL/],
    ['an unpaired surrogate in the prompt', { prompt: 'crm \ud800' }, /surrogate/],
    ['an unpaired surrogate in an advertiser', { ads: [{ advertiser: '\udfff' }] }, /surrogate/],
    ['a run time in year 9999', { ranAt: '9999-01-01T00:00:00Z' }, /future/],
    ['a run time next month', { ranAt: '2026-12-31T00:00:00Z' }, /future/],
    ['a run time in 1970', { ranAt: '1970-01-01T00:00:00Z' }, /before 2020/],
    ['a position out of range', { mentions: [{ subject: 'Acme', position: 1e12 }] }, /position/],
    ['a count out of range', { mentions: [{ subject: 'Acme', count: 2 ** 40 }] }, /count/],
    ['a sentiment out of range', { mentions: [{ subject: 'Acme', sentiment: 1e300 }] }, /sentiment/],
  ] as const) {
    test(`rejects ${name} with a reason`, () => {
      const parsed = parseRunLine(JSON.stringify({ ...valid, ...change }), new Date('2026-11-23T12:00:00Z'));
      assert.equal(parsed.ok, false);
      if (!parsed.ok) assert.match(parsed.message, reason);
    });
  }

  test('a run up to a day ahead of the clock is accepted (clock skew)', () => {
    const parsed = parseRunLine(JSON.stringify({ ...valid, ranAt: '2026-11-24T06:00:00Z' }), new Date('2026-11-23T12:00:00Z'));
    assert.ok(parsed.ok);
  });

  test('rejects what is not a JSON object', () => {
    for (const line of ['', 'nope', '[]', '42', 'null', '"run"', '{"engine":']) {
      assert.equal(parseRunLine(line).ok, false, line);
    }
  });

  test('never throws, whatever the line', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify(v))), (line) => {
        const parsed = parseRunLine(line);
        assert.equal(typeof parsed.ok, 'boolean');
        if (!parsed.ok) assert.ok(parsed.message.length > 0);
      }),
    );
    fc.assert(
      fc.property(
        fc.record({
          engine: fc.oneof(fc.constantFrom('chatgpt', 'claude'), fc.anything()),
          prompt: fc.anything(),
          ranAt: fc.oneof(fc.constant('2026-11-01T09:00:00Z'), fc.anything()),
          status: fc.oneof(fc.constantFrom('ok', 'failed'), fc.anything()),
          mentions: fc.anything(),
          citations: fc.anything(),
          ads: fc.anything(),
        }, { requiredKeys: [] }),
        (record) => {
          const parsed = parseRunLine(JSON.stringify(record) ?? 'undefined');
          assert.equal(typeof parsed.ok, 'boolean');
        },
      ),
    );
  });
});
