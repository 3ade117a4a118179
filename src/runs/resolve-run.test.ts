import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseRunLine } from './parse-run-line.ts';
import { advertiserCompetitor, citedSubject, resolveRun } from './resolve-run.ts';
import type { Subject } from './subjects.ts';

const SUBJECTS: Subject[] = [
  { type: 'brand', id: 'b', name: 'Acme', domain: 'acme.com', aliases: ['AcmeCRM'] },
  { type: 'competitor', id: 'g', name: 'Globex', domain: 'globex.com', aliases: [] },
  { type: 'competitor', id: 's', name: 'Shop', domain: 'shop.acme.com', aliases: [] },
];

const record = (over: Record<string, unknown>) => {
  const parsed = parseRunLine(JSON.stringify({ engine: 'chatgpt', prompt: 'p', ranAt: '2026-11-20T09:00:00Z', status: 'ok', ...over }), new Date('2026-11-21T00:00:00Z'));
  assert.ok(parsed.ok, JSON.stringify(parsed));
  return parsed.record;
};

describe('resolveRun (the resolve step)', () => {
  test('listed mentions: tracked subjects by name, alias or domain; untracked ones left out; one per subject', () => {
    const run = resolveRun(record({ mentions: [{ subject: 'acmecrm', position: 2, sentiment: 80 }, { subject: 'Initech' }, { subject: 'GLOBEX.COM', count: 3 }] }), 'id', SUBJECTS);
    assert.ok(typeof run !== 'string');
    assert.deepEqual(run.mentions.map((m) => [m.subject.id, m.position, m.sentiment, m.count]), [['b', 2, 80, 1], ['g', null, null, 3]]);
    assert.match(String(resolveRun(record({ mentions: [{ subject: 'Acme' }, { subject: 'acme.com' }] }), 'id', SUBJECTS)), /names Acme again/);
  });

  test('without a list, mentions are found in the answer; without either, none', () => {
    const run = resolveRun(record({ answer: 'Globex leads; Acme follows. Globex again.' }), 'id', SUBJECTS);
    assert.ok(typeof run !== 'string');
    assert.deepEqual(run.mentions.map((m) => [m.subject.id, m.position, m.count, m.sentiment]), [['g', 1, 2, null], ['b', 2, 1, null]]);
    const bare = resolveRun(record({}), 'id', SUBJECTS);
    assert.ok(typeof bare !== 'string' && bare.mentions.length === 0);
  });

  test('citations: one per page, in first-cited order, with their owner (the most specific domain)', () => {
    const run = resolveRun(
      record({ citations: [{ url: 'https://shop.acme.com/x?utm_source=a' }, { url: 'https://acme.com/p' }, { url: 'https://shop.acme.com/x#f', status: 'verified' }, { url: 'https://g2.com/a' }] }),
      'id',
      SUBJECTS,
    );
    assert.ok(typeof run !== 'string');
    assert.deepEqual(run.citations.map((c) => [c.url, c.owner?.id ?? null, c.status]), [
      ['https://shop.acme.com/x', 's', 'unchecked'],
      ['https://acme.com/p', 'b', 'unchecked'],
      ['https://g2.com/a', null, 'unchecked'],
    ]);
    assert.equal(run.citations[0]!.rawUrl, 'https://shop.acme.com/x?utm_source=a');
  });

  test('ads: the competitor behind an advertiser name, alias, domain or the ad host', () => {
    assert.equal(advertiserCompetitor(SUBJECTS, 'globex.com', undefined)?.id, 'g');
    assert.equal(advertiserCompetitor(SUBJECTS, 'Some agency', 'https://www.globex.com/lp')?.id, 'g');
    assert.equal(advertiserCompetitor(SUBJECTS, 'Acme', undefined), undefined, 'the brand is no rival');
    assert.equal(citedSubject(SUBJECTS, 'www.acme.com')?.id, 'b');
    assert.equal(citedSubject(SUBJECTS, 'deep.shop.acme.com')?.id, 's');
  });
});
