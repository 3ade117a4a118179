import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { addRun, emptyDeltas, SEP, type RunContribution } from './cube-deltas.ts';
import { citationsBySubject, type UrlState } from './subject-citations.ts';

const dims = { engineId: 'e1', topicId: null, location: 'US', branded: true, day: '2026-11-20' };
const base: RunContribution = { dims, status: 'ok', mentions: [], pages: [], subjectCitations: new Map() };
const page = (urlId: string) => urlId;

describe('cube deltas (the cube-delta step)', () => {
  test('a completed run: the six kept cells of run sums; mentions, citations and citing runs of the subjects it names or cites', () => {
    const deltas = emptyDeltas();
    addRun(deltas, { ...base, mentions: [{ subjectId: 'b', count: 2, position: 1, sentiment: 80 }], pages: [page('u1'), page('u2')], subjectCitations: new Map([['b', 2]]) });
    assert.ok([...deltas.runs.values()].every((r) => r.ok_runs === 1 && r.failed_runs === 0 && r.mentions === 2));
    const all = deltas.subjects.get(['15', '00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000', '', 'false', '2026-11-20', 'b'].join(SEP))!;
    assert.deepEqual(all, { untracked_runs: 0, mention_runs: 1, mentions: 2, position_sum: 1, position_count: 1, sentiment_sum: 80, sentiment_count: 1, citations: 2, citing_runs: 1 });
    // A subject the run neither mentions nor cites gets no row: the run count is its sample.
    assert.equal(deltas.subjects.get(['0', 'e1', '00000000-0000-0000-0000-000000000000', 'US', 'true', '2026-11-20', 'g'].join(SEP)), undefined);
    // Six cells kept per rollup; per URL the detail and none, one citation on day 20 of the month.
    assert.equal(deltas.runs.size, 6);
    assert.equal(deltas.urls.size, 4);
    assert.ok([...deltas.urls.values()].every((counts) => counts.length === 31 && counts[19] === 1 && counts.reduce((a, b) => a + b) === 1));
  });

  test('a failed run counts only as failed', () => {
    const deltas = emptyDeltas();
    addRun(deltas, { ...base, status: 'failed', mentions: [{ subjectId: 'b', count: 1, position: null, sentiment: null }], pages: [page('u')] });
    assert.ok([...deltas.runs.values()].every((r) => r.failed_runs === 1 && r.ok_runs === 0 && r.mentions === 0));
    assert.equal(deltas.subjects.size, 0);
    assert.equal(deltas.urls.size, 0);
  });

  test('property: deltas of runs added one by one equal the sums of their parts (additive, order-free)', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ok: fc.boolean(), mentioned: fc.boolean(), cites: fc.nat({ max: 3 }) }), { maxLength: 20 }), (runs) => {
        const deltas = emptyDeltas();
        for (const r of runs) {
          addRun(deltas, { ...base, status: r.ok ? 'ok' : 'failed', mentions: r.mentioned ? [{ subjectId: 'b', count: 1, position: 1, sentiment: null }] : [], pages: Array.from({ length: r.cites }, (_, i) => page(`u${i}`)), subjectCitations: new Map(r.cites ? [['g', r.cites]] : []) });
        }
        const key = ['15', '00000000-0000-0000-0000-000000000000', '00000000-0000-0000-0000-000000000000', '', 'false', '2026-11-20'].join(SEP);
        const ok = runs.filter((r) => r.ok);
        assert.equal(deltas.runs.get(key)?.ok_runs ?? 0, ok.length);
        assert.equal(deltas.subjects.get(`${key}${SEP}b`)?.mention_runs ?? 0, ok.filter((r) => r.mentioned).length);
        assert.equal(deltas.subjects.get(`${key}${SEP}g`)?.citing_runs ?? 0, ok.filter((r) => r.cites > 0).length);
        assert.equal(deltas.subjects.get(`${key}${SEP}g`)?.citations ?? 0, ok.reduce((n, r) => n + r.cites, 0));
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
