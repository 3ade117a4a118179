import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { findMentions, resolveSubject, type Subject } from './subjects.ts';

const subjects: Subject[] = [
  { type: 'brand', id: 'b', name: 'Acme', domain: 'acme.com', aliases: ['Acme CRM'] },
  { type: 'competitor', id: 'g', name: 'Globex', domain: 'globex.com', aliases: [] },
  { type: 'competitor', id: 'c', name: 'C++ Tools', domain: 'cpp.tools', aliases: [] },
];

describe('findMentions', () => {
  test('word-bounded, case-insensitive, by name, alias and domain; position by first occurrence', () => {
    const found = findMentions('GLOBEX leads. Then Acme CRM (see acme.com); acme again. Acmes and xglobex do not count.', subjects);
    assert.deepEqual(
      found.map((m) => [m.subject.id, m.position, m.count]),
      [
        ['g', 1, 1],
        ['b', 2, 3],
      ],
    );
  });
  test('names with regex characters are matched literally', () => {
    assert.deepEqual(findMentions('Try C++ Tools today', subjects).map((m) => m.subject.id), ['c']);
  });
  test('an answer naming nobody has no mentions', () => {
    assert.deepEqual(findMentions('Nothing to see here', subjects), []);
    assert.deepEqual(findMentions('', subjects), []);
  });
});

describe('resolveSubject', () => {
  test('by name, alias or domain, case-insensitive; untracked names resolve to nothing', () => {
    assert.equal(resolveSubject(subjects, 'acme crm')?.id, 'b');
    assert.equal(resolveSubject(subjects, 'GLOBEX.COM')?.id, 'g');
    assert.equal(resolveSubject(subjects, ' Acme ')?.id, 'b');
    assert.equal(resolveSubject(subjects, 'Umbrella'), undefined);
  });
});
