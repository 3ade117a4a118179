import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { findMentions, mentionSpans, type Subject } from './subjects.ts';

const subjects: Subject[] = [
  { type: 'brand', id: 'acme', name: 'Acme', domain: 'acme.com', aliases: ['Acme CRM', 'ACME Corp'] },
  { type: 'competitor', id: 'globex', name: 'Globex', domain: 'globex.io', aliases: [] },
  { type: 'competitor', id: 'crm', name: 'CRM Co', domain: 'crm.co', aliases: ['Acme CRM Pro'] },
];

test('finds each naming, longest term first, with its place', () => {
  const text = 'Acme CRM Pro beats Acme CRM; see acme.com or Globex.';
  assert.deepEqual(
    mentionSpans(text, subjects).map((s) => [s.subjectId, text.slice(s.start, s.end)]),
    [
      ['crm', 'Acme CRM Pro'],
      ['acme', 'Acme CRM'],
      ['acme', 'acme.com'],
      ['globex', 'Globex'],
    ],
  );
});

test('no subjects, no spans', () => {
  assert.deepEqual(mentionSpans('Acme', []), []);
});

// findMentions is built on mentionSpans: the two agree on subjects and counts.
test('agrees with findMentions on subjects and counts, on any text', () => {
  const pieces = ['Acme', 'acme', 'ACME', 'Acme CRM', 'Acme CRM Pro', 'ACME Corp', 'acme.com', 'Globex', 'globex.io', 'CRM Co', 'crm.co', ' ', '.', '-', '_', 'x', '1', 'é', '\n'];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 25 }), (parts) => {
      const text = parts.join('');
      const counts = new Map<string, number>();
      for (const s of mentionSpans(text, subjects)) counts.set(s.subjectId, (counts.get(s.subjectId) ?? 0) + 1);
      const want = new Map(findMentions(text, subjects).map((m) => [m.subject.id, m.count]));
      assert.deepEqual(counts, want, text);
    }),
    { numRuns: 1000 },
  );
});
