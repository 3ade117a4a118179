import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { retryAfterMs } from './providers/call-provider.ts';
import { ProviderError } from './providers/provider.ts';
import { MAX_ATTEMPTS, MAX_BACKOFF_MS, nextAttemptAt } from './retry-policy.ts';

const NOW = new Date('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;

describe('when a failed check is tried again', () => {
  test("a provider's wait: retry-after-ms, retry-after in seconds or as a date, each capped at an hour", () => {
    assert.equal(retryAfterMs({ 'retry-after-ms': '1500' }), 1_500);
    assert.equal(retryAfterMs({ 'retry-after': '30' }), 30_000);
    assert.equal(retryAfterMs({ 'retry-after': '0' }), 0);
    assert.equal(retryAfterMs({ 'retry-after': new Date(NOW.getTime() + 90_000).toUTCString() }, NOW.getTime()), 90_000);
    assert.equal(retryAfterMs({ 'retry-after': new Date(NOW.getTime() - 90_000).toUTCString() }, NOW.getTime()), 0, 'a date gone by: at once');
    assert.equal(retryAfterMs({ 'retry-after': '86400' }), HOUR);
    assert.equal(retryAfterMs({ 'retry-after-ms': '99999999' }), HOUR);
    assert.equal(retryAfterMs({ 'retry-after-ms': '1000', 'retry-after': '60' }), 1_000, 'the finer one first');
    for (const junk of ['', ' ', 'soon', 'in a minute']) assert.equal(retryAfterMs({ 'retry-after': junk }), undefined, JSON.stringify(junk));
    assert.equal(retryAfterMs({}), undefined);
  });

  test('the wait asked for is honoured, with at most 10% added; an hour asked is an hour waited, the check still queued', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: HOUR }), fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (wait, attempts, r) => {
        const at = nextAttemptAt(new ProviderError('rate_limited', '429', { retryAfterMs: wait }), attempts, NOW, () => r);
        assert.ok(at);
        const waited = at.getTime() - NOW.getTime();
        assert.ok(waited >= wait && waited <= Math.round(wait * 1.1), `${waited} for ${wait}`);
      }),
    );
  });

  test('else 5 s, 10 s, 20 s ... with +-20%, never over the cap; what trying again cannot fix, and the last attempt, are final', () => {
    const waits = [1, 2, 3].map((attempts) => nextAttemptAt(new ProviderError('server_error', '503'), attempts, NOW, () => 0.5)!.getTime() - NOW.getTime());
    assert.deepEqual(waits, [5_000, 10_000, 20_000]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempts, r) => {
        const at = nextAttemptAt(new ProviderError('timeout', 'slow'), attempts, NOW, () => r);
        if (attempts >= MAX_ATTEMPTS) return assert.equal(at, undefined);
        const waited = at!.getTime() - NOW.getTime();
        assert.ok(waited <= MAX_BACKOFF_MS * 1.2 && waited >= 4_000, String(waited));
      }),
    );
    for (const failure of ['auth', 'quota', 'bad_request', 'malformed', 'refused'] as const) {
      assert.equal(nextAttemptAt(new ProviderError(failure, 'final', { retryAfterMs: 1_000 }), 1, NOW), undefined, failure);
    }
  });
});
