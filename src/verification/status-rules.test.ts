import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideStatus, type UrlRecord } from './status-rules.ts';

const NOW = new Date('2026-11-20T12:00:00Z');
const hours = (h: number) => new Date(NOW.getTime() + h * 3_600_000);
const fresh: UrlRecord = { status: 'unchecked', everVerified: false, verifiedUrl: null, retrieved: false, failures: 0, firstFailureAt: null };
const verified: UrlRecord = { ...fresh, status: 'verified', everVerified: true, verifiedUrl: 'https://acme.com/pricing' };
const ok = (finalUrl = 'https://acme.com/pricing', permanentRedirect = false) => ({ kind: 'ok' as const, status: 200, finalUrl, permanentRedirect, toHome: false });

describe('the status rules (operations.md section 7), row by row', () => {
  test('verified: 2xx within 5 redirects, not a soft 404; rechecked after the recheck days', () => {
    const d = decideStatus(fresh, ok(), NOW, 7);
    assert.equal(d.status, 'verified');
    assert.equal(d.everVerified, true);
    assert.equal(d.verifiedUrl, 'https://acme.com/pricing');
    assert.deepEqual(d.nextCheckAt, hours(7 * 24));
    // A page first seen behind a permanent redirect is verified where it answers, and stays so.
    const first = decideStatus(fresh, ok('https://acme.com/new-pricing', true), NOW, 7);
    assert.equal(first.status, 'verified');
    assert.equal(decideStatus({ ...fresh, ...first }, ok('https://acme.com/new-pricing', true), NOW, 7).status, 'verified');
  });

  test('stale: existed (verified before, retrieved by an engine, or so imported) and now gone or moved', () => {
    for (const why of ['not_found', 'gone', 'soft_404', 'redirect_home'] as const) {
      assert.equal(decideStatus(verified, { kind: 'gone', status: 404, finalUrl: 'x', why }, NOW, 7).status, 'stale', why);
      assert.equal(decideStatus({ ...fresh, retrieved: true }, { kind: 'gone', status: 404, finalUrl: 'x', why }, NOW, 7).status, 'stale', `${why}, retrieved`);
    }
    assert.equal(decideStatus(verified, ok('https://acme.com/elsewhere', true), NOW, 7).status, 'stale', 'a permanent redirect to another page');
    assert.equal(decideStatus(verified, ok('https://acme.com/pricing', true), NOW, 7).status, 'verified', 'redirecting where it was verified is no move');
    assert.equal(decideStatus({ ...fresh, status: 'verified' }, { kind: 'gone', status: 410, finalUrl: 'x', why: 'gone' }, NOW, 7).status, 'stale', 'imported as verified');
    assert.equal(decideStatus(verified, { kind: 'no_host', why: 'ENOTFOUND' }, NOW, 7).status, 'stale', 'its host expired');
  });

  test('hallucinated: no such host, or gone with no sign the page ever existed', () => {
    assert.equal(decideStatus(fresh, { kind: 'no_host', why: 'ENOTFOUND' }, NOW, 7).status, 'hallucinated');
    for (const why of ['not_found', 'gone', 'soft_404', 'redirect_home'] as const) {
      assert.equal(decideStatus(fresh, { kind: 'gone', status: 404, finalUrl: 'x', why }, NOW, 7).status, 'hallucinated', why);
    }
  });

  test('broken: the third failure in a row, spanning at least 24 hours; before that the status stays', () => {
    let url: UrlRecord = fresh;
    const failed = { kind: 'failed' as const, why: '503' };
    let d = decideStatus(url, failed, NOW, 7);
    assert.equal(d.status, 'unchecked', 'one transient failure is inconclusive');
    assert.deepEqual(d.nextCheckAt, hours(12));
    url = { ...url, ...d };
    d = decideStatus(url, failed, hours(12), 7);
    assert.equal(d.status, 'unchecked');
    url = { ...url, ...d };
    d = decideStatus(url, failed, hours(23), 7);
    assert.equal(d.status, 'unchecked', 'three failures within 23 hours are not enough');
    url = { ...url, ...d };
    d = decideStatus(url, failed, hours(24), 7);
    assert.equal(d.status, 'broken');
    assert.equal(d.failures, 4);
    // A verified page keeps its status through a failure, and an answer resets the count.
    const once = decideStatus(verified, failed, NOW, 7);
    assert.equal(once.status, 'verified');
    assert.equal(decideStatus({ ...verified, ...once }, ok(), hours(1), 7).failures, 0);
  });

  test('unchecked: inconclusive answers (401, 403, 429, robots.txt, DNS trouble) change nothing but the next check', () => {
    for (const seen of [
      { kind: 'inconclusive' as const, why: 'forbidden', status: 403 },
      { kind: 'inconclusive' as const, why: 'rate limited', status: 429 },
      { kind: 'inconclusive' as const, why: 'robots' },
      { kind: 'inconclusive' as const, why: 'dns_temporary' },
    ]) {
      const d = decideStatus(fresh, seen, NOW, 7);
      assert.equal(d.status, 'unchecked');
      assert.deepEqual(d.nextCheckAt, hours(24));
      assert.equal(decideStatus(verified, seen, NOW, 7).status, 'verified');
    }
  });
});
