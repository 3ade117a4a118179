import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { addDays } from '../analytics/filters.ts';
import { evaluateChanges, type DayCounts, type Scope, type SubjectInfo } from './evaluate-changes.ts';
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

describe('evaluateChanges on pure noise', () => {
  test('rarely fires when nothing truly changes (false-positive rate measured and bounded)', () => {
    let comparisons = 0;
    let visibilityEvents = 0;
    let rankEvents = 0;
    let citationEvents = 0;
    let dayComparisons = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.array(fc.double({ min: 0.02, max: 0.98, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.array(fc.double({ min: 0.02, max: 0.6, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 5, max: 150 }),
        (seed, rates, citeRates, size) => {
          const random = mulberry32(seed);
          const days = new Map<string, DayCounts>();
          const evaluated: string[] = [];
          for (let d = 0; d < 28; d++) {
            const day = addDays('2026-10-01', d);
            evaluated.push(day);
            const n = random() < 0.1 ? Math.floor(random() * 5) : size + Math.floor(random() * size);
            const mentionRuns = new Map(SUBJECTS.map((s, i) => [s.id, binomial(n, rates[i]!, random)]));
            const citedUrls = new Map<string, Map<string, number>>();
            for (const [i, s] of SUBJECTS.entries()) {
              const cited = binomial(n, citeRates[i]!, random);
              citedUrls.set(s.id, cited > 0 ? new Map([[`https://${s.id}.example/`, cited]]) : new Map());
            }
            days.set(day, { n, mentionRuns, citedUrls });
          }
          const scope: Scope = { engineId: null, engineLabel: null, days };
          const events = evaluateChanges(evaluated, [scope], SUBJECTS, []);
          const measured = evaluated.filter((d) => days.get(d)!.n >= 5).length;
          comparisons += measured * SUBJECTS.length;
          dayComparisons += measured;
          visibilityEvents += events.filter((e) => e.kind.startsWith('visibility')).length;
          rankEvents += events.filter((e) => e.kind.startsWith('rank')).length;
          citationEvents += events.filter((e) => e.kind.startsWith('citation')).length;
        },
      ),
      { numRuns: 300, seed: 20261122 },
    );
    const visibilityRate = visibilityEvents / comparisons;
    const rankRate = rankEvents / comparisons;
    const citationRate = citationEvents / comparisons;
    console.log(
      `false positives on noise: visibility ${(100 * visibilityRate).toFixed(3)}% of ${comparisons} subject-days, ` +
        `rank ${(100 * rankRate).toFixed(3)}%, citation ${(100 * citationRate).toFixed(3)}% (${dayComparisons} measured days)`,
    );
    assert.ok(visibilityRate < 0.01, `visibility false-positive rate ${visibilityRate}`);
    assert.ok(rankRate < 0.01, `rank false-positive rate ${rankRate}`);
  });

  test('a true change of 40 points on 60 runs a day is found', () => {
    const random = mulberry32(7);
    const days = new Map<string, DayCounts>();
    const evaluated: string[] = [];
    for (let d = 0; d < 10; d++) {
      const day = addDays('2026-10-01', d);
      evaluated.push(day);
      const p = d < 5 ? 0.3 : 0.7;
      days.set(day, { n: 60, mentionRuns: new Map([['b', binomial(60, p, random)]]), citedUrls: new Map() });
    }
    const events = evaluateChanges(evaluated, [{ engineId: null, engineLabel: null, days }], SUBJECTS.slice(0, 1), []);
    assert.ok(events.some((e) => e.kind === 'visibility_gained' && e.day === '2026-10-06'));
  });
});
