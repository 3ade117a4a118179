import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { addDays } from '../analytics/filters.ts';
import { evaluateChanges, type AdSighting, type DayCounts, type Scope, type SubjectCounts, type SubjectInfo } from './evaluate-changes.ts';
import { mulberry32 } from '../demo/prng.ts';

const SUBJECTS: SubjectInfo[] = [
  { id: 'b', type: 'brand', name: 'Brand' },
  { id: 'c1', type: 'competitor', name: 'One' },
  { id: 'c2', type: 'competitor', name: 'Two' },
  { id: 'c3', type: 'competitor', name: 'Three' },
];

const binomial = (n: number, p: number, random: () => number) => {
  let k = 0;
  for (let i = 0; i < n; i++) if (random() < p) k++;
  return k;
};

const day = (n: number, subjects: [string, SubjectCounts][]): DayCounts => ({ n, subjects: new Map(subjects) });

describe('evaluateChanges on pure noise: every kind fires on at most 1% of the comparisons it evaluates', () => {
  test('visibility, rank and citation events, with competitors tracked from a later day', () => {
    const comparisons = { visibility: 0, rank: 0, citation: 0 };
    const fired = { visibility: 0, rank: 0, citation: 0 };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.array(fc.double({ min: 0.02, max: 0.98, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.array(fc.double({ min: 0.02, max: 0.6, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 5, max: 150 }),
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 4, maxLength: 4 }),
        (seed, rates, citeRates, size, trackedFrom) => {
          const random = mulberry32(seed);
          const days = new Map<string, DayCounts>();
          const evaluated: string[] = [];
          for (let d = 0; d < 28; d++) {
            const date = addDays('2026-10-01', d);
            evaluated.push(date);
            const n = random() < 0.1 ? Math.floor(random() * 5) : size + Math.floor(random() * size);
            days.set(
              date,
              day(
                n,
                SUBJECTS.map((s, i) => {
                  // The brand is tracked from the start; a competitor from a day of its own.
                  const tracked = i === 0 || d >= trackedFrom[i]! ? n : 0;
                  return [s.id, { untracked: n - tracked, mentionRuns: binomial(tracked, rates[i]!, random), citingRuns: binomial(n, citeRates[i]!, random) }];
                }),
              ),
            );
          }
          const events = evaluateChanges(evaluated, [{ engineId: null, engineLabel: null, days }], SUBJECTS, []);
          // Comparisons evaluated: a subject-day with a measured day to compare with.
          for (const [i, date] of evaluated.entries()) {
            const today = days.get(date)!;
            const measuredBefore = (ok: (c: DayCounts) => boolean) => evaluated.slice(Math.max(0, i - 7), i).some((d) => ok(days.get(d)!));
            for (const s of SUBJECTS) {
              const trackedOn = (c: DayCounts) => c.n - c.subjects.get(s.id)!.untracked;
              if (trackedOn(today) >= 5 && measuredBefore((c) => trackedOn(c) >= 5)) comparisons.visibility++;
              if (today.n >= 5 && measuredBefore((c) => c.n >= 5)) {
                comparisons.citation++;
                comparisons.rank++;
              }
            }
          }
          fired.visibility += events.filter((e) => e.kind.startsWith('visibility')).length;
          fired.rank += events.filter((e) => e.kind.startsWith('rank')).length;
          fired.citation += events.filter((e) => e.kind.startsWith('citation')).length;
        },
      ),
      { numRuns: 300, seed: 20261122 },
    );
    for (const kind of ['visibility', 'rank', 'citation'] as const) {
      const rate = fired[kind] / comparisons[kind];
      console.log(`false positives on noise, ${kind}: ${(100 * rate).toFixed(3)}% of ${comparisons[kind]} comparisons`);
      assert.ok(comparisons[kind] > 10_000, `${kind}: enough comparisons`);
      assert.ok(rate <= 0.01, `${kind} false-positive rate ${rate}`);
    }
  });

  test('a rival ad that keeps running is reported when it starts, not every day', () => {
    const random = mulberry32(11);
    const ads: AdSighting[] = [];
    const evaluated = Array.from({ length: 28 }, (_, d) => addDays('2026-10-01', d));
    let sightings = 0;
    for (let prompt = 0; prompt < 50; prompt++) {
      // A campaign runs from a random day to the end; the prompt is sampled on 80% of days.
      const start = Math.floor(random() * 28);
      for (let d = start; d < 28; d++) {
        if (random() < 0.2) continue;
        sightings++;
        ads.push({ day: evaluated[d]!, engineId: 'e', engineLabel: 'E', competitorId: 'c1', promptId: `p${prompt}`, prompt: `p${prompt}`, advertiser: 'One', url: null, runs: 1 });
      }
    }
    const events = evaluateChanges(evaluated, [], SUBJECTS, ads).filter((e) => e.kind === 'rival_ad_on_branded_prompt');
    assert.equal(events.length, 50, 'one start per campaign');
    assert.ok(events.length / sightings <= 0.1);
    // A campaign that pauses for more than a week starts again.
    const paused = evaluateChanges(evaluated, [], SUBJECTS, [
      { ...ads[0]!, day: evaluated[0]!, promptId: 'x' },
      { ...ads[0]!, day: evaluated[9]!, promptId: 'x' },
      { ...ads[0]!, day: evaluated[12]!, promptId: 'x' },
    ]).filter((e) => e.kind === 'rival_ad_on_branded_prompt');
    assert.deepEqual(paused.map((e) => e.day), [evaluated[0], evaluated[9]]);
  });
});

describe('evaluateChanges finds real changes', () => {
  test('a change of 40 points on 60 runs a day: visibility and citation share', () => {
    const random = mulberry32(7);
    const days = new Map<string, DayCounts>();
    const evaluated: string[] = [];
    for (let d = 0; d < 10; d++) {
      const date = addDays('2026-10-01', d);
      evaluated.push(date);
      const p = d < 5 ? 0.3 : 0.7;
      days.set(date, day(60, [['b', { untracked: 0, mentionRuns: binomial(60, p, random), citingRuns: binomial(60, 1 - p, random) }]]));
    }
    const events = evaluateChanges(evaluated, [{ engineId: null, engineLabel: null, days }], SUBJECTS.slice(0, 1), []);
    assert.ok(events.some((e) => e.kind === 'visibility_gained' && e.day === '2026-10-06'));
    assert.ok(events.some((e) => e.kind === 'citation_lost' && e.day === '2026-10-06'));
  });

  test('never across the day a competitor starts being tracked: before it, it has no sample', () => {
    const days = new Map<string, DayCounts>();
    const evaluated: string[] = [];
    for (let d = 0; d < 10; d++) {
      const date = addDays('2026-10-01', d);
      evaluated.push(date);
      // Tracked from day 5, at 50%: a "rise from 0%" would be fabricated.
      days.set(date, day(40, [['c1', { untracked: d >= 5 ? 0 : 40, mentionRuns: d >= 5 ? 20 : 0, citingRuns: 0 }]]));
    }
    const events = evaluateChanges(evaluated, [{ engineId: null, engineLabel: null, days }], [SUBJECTS[1]!], []);
    assert.deepEqual(events, []);
  });
});
