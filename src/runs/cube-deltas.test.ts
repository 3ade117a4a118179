import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { addRun, emptyDeltas, expandDeltas, type CellRow, type RunContribution } from './cube-deltas.ts';
import { cellsOf, NIL_UUID, URL_GROUPINGS } from './rollup-cube.ts';
import { citationsBySubject, type UrlState } from './subject-citations.ts';

const dims = { engineId: 'e1', topicId: null, location: 'US', branded: true, day: '2026-11-20' };
const base: RunContribution = { dims, status: 'ok', mentions: [], pages: [], subjectCitations: new Map() };
const page = (urlId: string) => urlId;
/** The row of the cell summed over everything (grouping 15), for a subject or URL id ('' for run rows). */
const overall = <T>(rows: CellRow<T>[], id = '') => rows.find((r) => r.cell.grouping === 15 && r.cell.engine_id === NIL_UUID && r.id === id)?.sums;

describe('cube deltas (the cube-delta step)', () => {
  test('a completed run: the nine kept cells of run sums; mentions, citations and citing runs of the subjects it names or cites', () => {
    const deltas = emptyDeltas();
    addRun(deltas, { ...base, mentions: [{ subjectId: 'b', count: 2, position: 1, sentiment: 80 }], pages: [page('u1'), page('u2')], subjectCitations: new Map([['b', 2]]) });
    const rows = expandDeltas(deltas);
    assert.ok(rows.runs.every((r) => r.sums.ok_runs === 1 && r.sums.failed_runs === 0 && r.sums.mentions === 2));
    assert.deepEqual(overall(rows.subjects, 'b'), { untracked_runs: 0, mention_runs: 1, mentions: 2, position_sum: 1, position_count: 1, sentiment_sum: 80, sentiment_count: 1, citations: 2, citing_runs: 1 });
    // A subject the run neither mentions nor cites gets no row: the run count is its sample.
    assert.equal(rows.subjects.filter((r) => r.id === 'g').length, 0);
    // Nine cells kept per rollup; per URL the five of one filter or none: one citation on day 20, as
    // running totals over the month; the detail's pages as one list for the cell and day.
    assert.deepEqual(rows.runs.map((r) => r.cell.grouping), [0, 5, 6, 7, 11, 12, 13, 14, 15]);
    assert.equal(rows.subjects.length, 9);
    assert.equal(rows.urls.length, 10);
    assert.deepEqual(rows.pages, [{ dims: { ...dims, topicId: NIL_UUID }, urlIds: ['u1', 'u2'], counts: [1, 1] }]);
    assert.ok(rows.urls.every((r) => r.day === '2026-11-01' && r.sums.length === 31 && r.sums.every((n, i) => n === (i >= 19 ? 1 : 0))));
    const detail = rows.runs.find((r) => r.cell.grouping === 0)!.cell;
    assert.deepEqual(detail, { grouping: 0, engine_id: 'e1', topic_id: NIL_UUID, location: 'US', branded: true });
  });

  test('a failed run counts only as failed', () => {
    const deltas = emptyDeltas();
    addRun(deltas, { ...base, status: 'failed', mentions: [{ subjectId: 'b', count: 1, position: null, sentiment: null }], pages: [page('u')] });
    const rows = expandDeltas(deltas);
    assert.ok(rows.runs.length === 9 && rows.runs.every((r) => r.sums.failed_runs === 1 && r.sums.ok_runs === 0 && r.sums.mentions === 0));
    assert.equal(rows.subjects.length, 0);
    assert.equal(rows.urls.length, 0);
    assert.equal(rows.pages.length, 0);
  });

  test('property: deltas of runs added one by one equal the sums of their parts (additive, order-free)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ok: fc.boolean(), mentioned: fc.boolean(), cites: fc.nat({ max: 3 }) }), { maxLength: 20 }), (runs) => {
        const deltas = emptyDeltas();
        for (const r of runs) {
          addRun(deltas, { ...base, status: r.ok ? 'ok' : 'failed', mentions: r.mentioned ? [{ subjectId: 'b', count: 1, position: 1, sentiment: null }] : [], pages: Array.from({ length: r.cites }, (_, i) => page(`u${i}`)), subjectCitations: new Map(r.cites ? [['g', r.cites]] : []) });
        }
        const rows = expandDeltas(deltas);
        const ok = runs.filter((r) => r.ok);
        assert.equal(overall(rows.runs)?.ok_runs ?? 0, ok.length);
        assert.equal(overall(rows.runs)?.failed_runs ?? 0, runs.length - ok.length);
        assert.equal(overall(rows.subjects, 'b')?.mention_runs ?? 0, ok.filter((r) => r.mentioned).length);
        assert.equal(overall(rows.subjects, 'g')?.citing_runs ?? 0, ok.filter((r) => r.cites > 0).length);
        assert.equal(overall(rows.subjects, 'g')?.citations ?? 0, ok.reduce((n, r) => n + r.cites, 0));
        assert.equal(overall(rows.urls, 'u0')?.[30] ?? 0, ok.filter((r) => r.cites > 0).length);
      }),
    );
  });

  test('property: summing at the detail level then spreading equals adding every run to every kept cell', () => {
    const dimsArb = fc.record({
      engineId: fc.constantFrom('e1', 'e2'),
      topicId: fc.constantFrom(null, 't1'),
      location: fc.constantFrom('', 'US', 'a|b'),
      branded: fc.boolean(),
      day: fc.constantFrom('2026-10-31', '2026-11-01', '2026-11-20'),
    });
    const runArb = fc.record({ dims: dimsArb, ok: fc.boolean(), mentions: fc.nat({ max: 3 }), cites: fc.nat({ max: 2 }) });
    fc.assert(
      fc.property(fc.array(runArb, { maxLength: 30 }), (runs) => {
        const deltas = emptyDeltas();
        const expected = new Map<string, number>();
        const bump = (key: string, n: number) => n !== 0 && expected.set(key, (expected.get(key) ?? 0) + n);
        for (const r of runs) {
          const mentions = r.mentions ? [{ subjectId: 'b', count: r.mentions, position: 1, sentiment: 50 }] : [];
          const pages = Array.from({ length: r.cites }, (_, i) => `u${i}`);
          addRun(deltas, { dims: r.dims, status: r.ok ? 'ok' : 'failed', mentions, pages, subjectCitations: new Map() });
          for (const c of cellsOf(r.dims.engineId, r.dims.topicId, r.dims.location, r.dims.branded)) {
            const cell = JSON.stringify(c);
            bump(`run ${cell} ${r.dims.day}`, r.ok ? 1 : 0);
            if (!r.ok) continue;
            bump(`subject ${cell} ${r.dims.day} b`, r.mentions);
            if (URL_GROUPINGS.has(c.grouping)) for (const u of pages) bump(`url ${cell} ${r.dims.day} ${u}`, 1);
            else if (c.grouping === 0) for (const u of pages) bump(`page ${JSON.stringify({ ...r.dims, topicId: r.dims.topicId ?? NIL_UUID })} ${u}`, 1);
          }
        }
        const rows = expandDeltas(deltas);
        const actual = new Map<string, number>();
        for (const r of rows.runs) if (r.sums.ok_runs) actual.set(`run ${JSON.stringify(r.cell)} ${r.day}`, r.sums.ok_runs);
        for (const r of rows.subjects) if (r.sums.mentions) actual.set(`subject ${JSON.stringify(r.cell)} ${r.day} ${r.id}`, r.sums.mentions);
        for (const p of rows.pages) p.urlIds.forEach((u, i) => actual.set(`page ${JSON.stringify(p.dims)} ${u}`, p.counts[i]!));
        // Running totals back to each day's count.
        for (const r of rows.urls) r.sums.forEach((n, i) => n - (r.sums[i - 1] ?? 0) && actual.set(`url ${JSON.stringify(r.cell)} ${r.day.slice(0, 8)}${String(i + 1).padStart(2, '0')} ${r.id}`, n - (r.sums[i - 1] ?? 0)));
        assert.deepEqual(new Map([...actual].sort()), new Map([...expected].sort()));
      }),
    );
  });

  test('citationsBySubject: owned, counted pages only', () => {
    const owners = new Map<string, UrlState>([
      ['a', { subjectId: 'b', status: 'verified' }],
      ['b', { subjectId: 'b', status: 'hallucinated' }],
      ['c', { subjectId: null, status: 'verified' }],
      ['d', { subjectId: 'g', status: 'stale' }],
    ]);
    assert.deepEqual([...citationsBySubject(['a', 'b', 'c', 'd', 'a'], (u) => owners.get(u))], [['b', 2], ['g', 1]]);
  });
});
