import { isSignificantChange } from '../changes/evaluate-changes.ts';

/** The power the planner aims for. */
export const TARGET_POWER = 0.8;
/** Beyond this many completed runs a day the planner stops looking. */
export const MAX_RUNS_PER_DAY = 20_000;

/**
 * The chance that a true move of the brand's visibility from `p0` to `p1` (proportions) between
 * two days with `n` completed runs each is reported by the change rule (changes/evaluate-changes.ts:
 * both days measured, Wilson intervals apart, at least 10 points). Exact: summed over both days'
 * binomial outcomes. For each count on the earlier day the smallest count on the later day that is
 * reported is found by one pointer (it only grows), so the sum costs O(n).
 */
export function detectionPower(n: number, p0: number, p1: number): number {
  if (p1 === p0 || n < 1) return 0;
  if (p1 < p0) return detectionPower(n, 1 - p0, 1 - p1); // a drop is a rise of the complement (the rule is symmetric)
  const before = binomialPmf(n, p0);
  const tail = upperTail(binomialPmf(n, p1));
  let power = 0;
  let y = 0;
  for (let x = 0; x <= n; x++) {
    if (y <= x) y = x + 1;
    while (y <= n && !isSignificantChange(y, n, x, n)) y++;
    if (y > n) break; // no later count is reported for this x, nor for any larger one
    power += before[x]! * tail[y]!;
  }
  return Math.min(1, power);
}

/**
 * The fewest completed runs a day (on both days) with which the change rule reports a move from
 * p0 to p1 with at least `power`; undefined when no number up to MAX_RUNS_PER_DAY does (a true
 * move of exactly 10 points is reported at most about half the time: the rule wants an observed
 * move of 10 points or more).
 */
export function runsPerDayFor(p0: number, p1: number, power: number = TARGET_POWER): number | undefined {
  let low = 4;
  let high = 5;
  while (detectionPower(high, p0, p1) < power) {
    low = high;
    high *= 2;
    if (high > MAX_RUNS_PER_DAY) {
      if (detectionPower(MAX_RUNS_PER_DAY, p0, p1) < power) return undefined;
      high = MAX_RUNS_PER_DAY;
      break;
    }
  }
  // The smallest n in (low, high] with enough power (power grows with n, up to the discreteness of counts).
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (detectionPower(mid, p0, p1) >= power) high = mid;
    else low = mid;
  }
  return high;
}

/** P(X = k) for X ~ Binomial(n, p), k = 0..n, computed in log space (no underflow at large n). */
export function binomialPmf(n: number, p: number): Float64Array {
  const out = new Float64Array(n + 1);
  if (p <= 0) {
    out[0] = 1;
    return out;
  }
  if (p >= 1) {
    out[n] = 1;
    return out;
  }
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let log = n * logQ;
  for (let k = 0; k <= n; k++) {
    out[k] = Math.exp(log);
    log += Math.log(n - k) - Math.log(k + 1) + logP - logQ;
  }
  return out;
}

/** tail[k] = P(X >= k); tail[n + 1] = 0. */
function upperTail(pmf: Float64Array): Float64Array {
  const tail = new Float64Array(pmf.length + 1);
  for (let k = pmf.length - 1; k >= 0; k--) tail[k] = tail[k + 1]! + pmf[k]!;
  return tail;
}
