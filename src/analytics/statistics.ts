/** Rates, their Wilson intervals, and the rounding every reported number goes through. */

/** Fewer completed runs than this and a rate is withheld (null), never shown as 0. */
export const MIN_RUNS = 5;

/** The 97.5th percentile of the standard normal: a two-sided 95% interval. */
const Z = 1.959963984540054;

/**
 * Rounds to 2 decimals, half away from zero, on the number's decimal form: 1.005 -> 1.01 and
 * -2.675 -> -2.68 (binary arithmetic alone would give 1 and -2.67).
 */
export function round2(value: number): number {
  if (!Number.isFinite(value)) return value;
  const sign = value < 0 ? -1 : 1;
  const shifted = Number(`${Math.abs(value)}e2`);
  const rounded = Number(`${Math.round(shifted)}e-2`);
  return sign * rounded || 0;
}

/** Wilson score interval for k successes in n trials, as unrounded percentages; 0-100 at n = 0. */
export function wilsonBounds(k: number, n: number): { low: number; high: number } {
  if (n <= 0) return { low: 0, high: 100 };
  const p = k / n;
  const z2 = Z * Z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (Z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return { low: Math.max(0, centre - half) * 100, high: Math.min(1, centre + half) * 100 };
}

/** Wilson score interval, rounded as reported. */
export function wilson(k: number, n: number): { low: number; high: number } {
  const { low, high } = wilsonBounds(k, n);
  return { low: round2(low), high: round2(high) };
}

/** `part / whole` as a rounded percentage, or null when there is no whole. */
export function percentage(part: number, whole: number): number | null {
  return whole > 0 ? round2((100 * part) / whole) : null;
}

/** `sum / count` rounded, or null when nothing was counted. */
export function mean(sum: number, count: number): number | null {
  return count > 0 ? round2(sum / count) : null;
}

export interface Rate {
  visibility: number | null;
  rateWithheld?: string;
  ciLow: number;
  ciHigh: number;
}

/**
 * Visibility of a subject: mentionRuns of sampleSize completed runs, withheld under MIN_RUNS with
 * the reason. `span` words the sentence for a day or a range.
 */
export function visibilityRate(mentionRuns: number, sampleSize: number, span: 'day' | 'range'): Rate {
  const { low, high } = wilson(mentionRuns, sampleSize);
  if (sampleSize >= MIN_RUNS) return { visibility: percentage(mentionRuns, sampleSize), ciLow: low, ciHigh: high };
  const where = span === 'day' ? 'on this day' : 'in this range';
  const rateWithheld =
    sampleSize === 0
      ? `Not sampled yet: no completed runs measured this subject ${where}.`
      : `Too few runs: ${sampleSize} completed ${sampleSize === 1 ? 'run' : 'runs'} ${where}; a rate needs at least ${MIN_RUNS}.`;
  return { visibility: null, rateWithheld, ciLow: low, ciHigh: high };
}
