import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { round2, visibilityRate, wilson } from './statistics.ts';

describe('round2', () => {
  test('rounds half away from zero on the decimal form', () => {
    assert.equal(round2(1.005), 1.01);
    assert.equal(round2(2.675), 2.68);
    assert.equal(round2(-2.675), -2.68);
    assert.equal(round2(0.125), 0.13);
    assert.equal(round2(12.344999), 12.34);
    assert.equal(round2(100), 100);
    assert.equal(round2(0), 0);
    assert.equal(Object.is(round2(-0.001), -0), false);
  });
  test('is never more than half a cent away and has at most two decimals', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (x) => {
        const r = round2(x);
        assert.ok(Math.abs(r - x) <= 0.005 + 1e-9);
        assert.equal(round2(r), r);
      }),
    );
  });
});

describe('wilson', () => {
  test('matches published reference values', () => {
    // Wilson score intervals, z = 1.96 (Newcombe 1998, table I; and R's binom::binom.wilson).
    const cases: [number, number, number, number][] = [
      [81, 263, 25.53, 36.62], // Newcombe's example: 0.2553 - 0.3662
      [15, 148, 6.24, 16.05], // 0.0624 - 0.1605
      [0, 20, 0, 16.11], // 0 - 0.1611
      [1, 29, 0.61, 17.18], // 0.0061 - 0.1718
      [29, 29, 88.3, 100], // 0.8830 - 1
      [5, 10, 23.66, 76.34],
      [0, 1, 0, 79.35],
      [1, 1, 20.65, 100],
    ];
    for (const [k, n, low, high] of cases) {
      const ci = wilson(k, n);
      assert.ok(Math.abs(ci.low - low) <= 0.01, `${k}/${n} low ${ci.low} vs ${low}`);
      assert.ok(Math.abs(ci.high - high) <= 0.01, `${k}/${n} high ${ci.high} vs ${high}`);
    }
  });
  test('n = 0 is the unconstrained band', () => {
    assert.deepEqual(wilson(0, 0), { low: 0, high: 100 });
  });
  test('always brackets the observed rate, within 0-100, narrowing as n grows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, f) => {
        const k = Math.round(f * n);
        const { low, high } = wilson(k, n);
        const p = (100 * k) / n;
        assert.ok(low >= 0 && high <= 100 && low <= high);
        assert.ok(low <= p + 0.01 && p - 0.01 <= high);
        const wider = wilson(k, n);
        const narrower = wilson(k * 4, n * 4);
        assert.ok(narrower.high - narrower.low <= wider.high - wider.low + 0.02);
      }),
    );
  });
});

describe('visibilityRate', () => {
  test('withholds under 5 completed runs with the two sentences, never withholds the interval', () => {
    const none = visibilityRate(0, 0, 'day');
    assert.equal(none.visibility, null);
    assert.match(none.rateWithheld!, /not sampled yet/i);
    assert.deepEqual([none.ciLow, none.ciHigh], [0, 100]);
    for (const n of [1, 2, 3, 4]) {
      const few = visibilityRate(1, n, 'day');
      assert.equal(few.visibility, null);
      assert.match(few.rateWithheld!, new RegExp(`too few runs: ${n} completed`, 'i'));
      assert.match(few.rateWithheld!, /at least 5/);
      assert.ok(few.ciHigh > few.ciLow);
    }
    const five = visibilityRate(2, 5, 'day');
    assert.equal(five.visibility, 40);
    assert.equal(five.rateWithheld, undefined);
    assert.equal('rateWithheld' in five, false);
  });
});
