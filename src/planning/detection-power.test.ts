import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isSignificantChange } from '../changes/evaluate-changes.ts';
import { mulberry32 } from '../demo/prng.ts';
import { binomialPmf, detectionPower, runsPerDayFor } from './detection-power.ts';

/** The change rule applied to simulated days, many times: what the exact sum must agree with. */
function simulatedPower(n: number, p0: number, p1: number, trials: number, seed: number): number {
  const random = mulberry32(seed);
  const draw = (p: number) => {
    let k = 0;
    for (let i = 0; i < n; i++) if (random() < p) k++;
    return k;
  };
  let hits = 0;
  for (let t = 0; t < trials; t++) {
    const before = draw(p0);
    const after = draw(p1);
    if ((p1 > p0 ? after > before : after < before) && isSignificantChange(after, n, before, n)) hits++;
  }
  return hits / trials;
}

describe('the sample-size planner', () => {
  test('the exact power agrees with simulating the change rule (rises and drops)', () => {
    for (const [n, p0, p1] of [[60, 0.3, 0.55], [150, 0.4, 0.25], [30, 0.1, 0.45], [200, 0.5, 0.6]] as const) {
      const exact = detectionPower(n, p0, p1);
      const simulated = simulatedPower(n, p0, p1, 4_000, n);
      assert.ok(Math.abs(exact - simulated) < 0.03, `n ${n}, ${p0} -> ${p1}: exact ${exact.toFixed(3)}, simulated ${simulated.toFixed(3)}`);
    }
  });

  test('the runs a day found are the fewest with 80% power; a move of 10 points never reaches it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 5, max: 85 }), fc.integer({ min: 15, max: 60 }), fc.boolean(), (base, delta, up) => {
        const p0 = base / 100;
        const p1 = up ? p0 + delta / 100 : p0 - delta / 100;
        fc.pre(p1 >= 0 && p1 <= 1);
        const n = runsPerDayFor(p0, p1);
        assert.ok(n !== undefined && n >= 5);
        assert.ok(detectionPower(n, p0, p1) >= 0.8);
        assert.ok(detectionPower(n - 1, p0, p1) < 0.8 || n === 5);
      }),
      { numRuns: 40 },
    );
    assert.equal(runsPerDayFor(0.3, 0.4), undefined);
    assert.ok(detectionPower(5_000, 0.3, 0.4) < 0.55, 'about half: the rule wants an observed move of 10 points or more');
  });

  test('binomial probabilities sum to 1 and do not underflow at large n', () => {
    for (const [n, p] of [[10, 0.3], [5_000, 0.5], [20_000, 0.01], [7, 0], [7, 1]] as const) {
      const pmf = binomialPmf(n, p);
      assert.ok(Math.abs(pmf.reduce((a, b) => a + b, 0) - 1) < 1e-9, `n ${n} p ${p}`);
    }
  });
});
