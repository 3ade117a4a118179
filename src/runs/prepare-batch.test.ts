import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseRunLine, type RunRecord } from './parse-run-line.ts';
import { prepareBatch, resolveFor } from './prepare-batch.ts';
import type { WriteContext } from './write-context.ts';

const NOW = new Date('2026-11-22T00:00:00Z');
const us = (iso: string) => Date.parse(iso) * 1000;

function context(): WriteContext {
  return {
    workspaceId: 'w',
    projectId: 'p',
    subjects: [
      { type: 'brand', id: 'b', name: 'Acme', domain: 'acme.com', aliases: [] },
      { type: 'competitor', id: 'g', name: 'Globex', domain: 'globex.com', aliases: [] },
    ],
    engines: new Map([['claude', 'e-claude']]),
    version: '1',
    generation: 0,
    topics: new Map([['crm', 't-crm']]),
    prompts: new Map(),
    pages: new Map([['https://acme.com/a', { id: 'u-a', subjectId: 'b', status: 'hallucinated', statusAtUs: us('2026-11-18T10:00:00Z') }]]),
    minted: new Map(),
    prepared: 0,
    lastCommitted: 0,
  };
}

function records(...runs: Record<string, unknown>[]): RunRecord[] {
  return runs.map((run, i) => {
    const parsed = parseRunLine(JSON.stringify({ id: `00000000-0000-4000-8000-00000000000${i}`, engine: 'claude', prompt: 'p', status: 'ok', ...run }), NOW);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    return parsed.record;
  });
}

describe('prepareBatch (the prepare step)', () => {
  test('known names keep their ids; new ones are minted once, the same when the batch is prepared again', async () => {
    const ctx = context();
    const batch = records({ topic: 'CRM', ranAt: '2026-11-18T09:00:00Z' }, { topic: 'Pricing', prompt: 'q', ranAt: '2026-11-18T09:00:00Z' });
    const first = await prepareBatch(ctx, resolveFor(ctx, batch));
    const again = await prepareBatch(ctx, resolveFor(ctx, batch));
    assert.equal(first.topicIds.get('crm'), 't-crm');
    assert.deepEqual(first.newNames.topics.map((t) => t.name), ['Pricing']);
    assert.deepEqual(first.newNames.prompts.map((p) => p.text), ['p', 'q']);
    assert.equal(again.topicIds.get('pricing'), first.topicIds.get('pricing'));
    assert.equal(again.promptIds.get('q'), first.promptIds.get('q'));
    assert.ok(again.seq > first.seq);
  });

  test("a page's state after: the latest observation wins (a tie to the later run), an older one leaves it; a change is listed", async () => {
    const ctx = context();
    const cite = (url: string, status: string) => ({ citations: [{ url, status }] });
    const batch = records(
      { ranAt: '2026-11-18T08:00:00Z', ...cite('https://acme.com/a', 'verified') }, // older than the stored status: no effect
      { ranAt: '2026-11-18T11:00:00Z', ...cite('https://acme.com/a', 'broken') },
      { ranAt: '2026-11-18T11:00:00Z', ...cite('https://acme.com/a', 'stale') }, // same time, later in the batch: wins
      { ranAt: '2026-11-18T12:00:00Z', ...cite('https://globex.com/x', 'verified') },
    );
    const prepared = await prepareBatch(ctx, resolveFor(ctx, batch));
    const a = prepared.pages.get('https://acme.com/a')!;
    assert.deepEqual([a.id, a.before?.status, a.after.status, a.after.statusAtUs], ['u-a', 'hallucinated', 'stale', us('2026-11-18T11:00:00Z')]);
    const x = prepared.pages.get('https://globex.com/x')!;
    assert.deepEqual([x.before, x.after.subjectId, x.after.status], [undefined, 'g', 'verified']);
    assert.equal(x.id, ctx.minted.get('u:https://globex.com/x'));
    assert.deepEqual([...prepared.changes.keys()], ['u-a']);
  });

  test('on top of a batch in flight: its pages after are this batch\'s pages before, its names are not created twice', async () => {
    const ctx = context();
    const inflight = await prepareBatch(ctx, resolveFor(ctx, records({ topic: 'Pricing', ranAt: '2026-11-18T11:00:00Z', citations: [{ url: 'https://acme.com/a', status: 'verified' }] })));
    const next = await prepareBatch(ctx, resolveFor(ctx, records({ topic: 'pricing', ranAt: '2026-11-18T12:00:00Z', citations: [{ url: 'https://acme.com/a', status: 'verified' }] })), { inflight });
    assert.equal(next.pages.get('https://acme.com/a')!.before?.status, 'verified');
    assert.equal(next.changes.size, 0);
    assert.deepEqual(next.newNames.topics, []);
    assert.equal(next.topicIds.get('pricing'), inflight.topicIds.get('pricing'));
    assert.equal(next.baseSeq, inflight.seq);
  });

  test('only the runs that landed: their days, their pages, their deltas', async () => {
    const ctx = context();
    const batch = records(
      { ranAt: '2026-11-18T09:00:00Z', mentions: [{ subject: 'Acme' }], citations: [{ url: 'https://acme.com/b' }] },
      { ranAt: '2026-11-19T09:00:00Z', mentions: [{ subject: 'Acme' }] },
    );
    const resolved = resolveFor(ctx, batch);
    const all = await prepareBatch(ctx, resolved);
    const landed = await prepareBatch(ctx, resolved, { landed: new Set([resolved.runs[1]!.id]) });
    assert.deepEqual(all.days, ['2026-11-18', '2026-11-19']);
    assert.deepEqual(landed.days, ['2026-11-19']);
    assert.equal(landed.pages.size, 0);
    assert.equal(landed.runs.length, 1);
    assert.equal(landed.rollups.urls.length, 0);
  });
});
