import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { findMentions, type Subject } from '../runs/subjects.ts';
import { sentencesNaming, splitSentences } from './sentences.ts';

const subjects: Subject[] = [
  { type: 'brand', id: 'acme', name: 'Acme', domain: 'acme.com', aliases: ['Acme CRM'] },
  { type: 'competitor', id: 'globex', name: 'Globex', domain: 'globex.io', aliases: [] },
  { type: 'competitor', id: 'initech', name: 'Initech Inc.', domain: 'initech.com', aliases: ['Initech'] },
];

const texts = (answer: string) => splitSentences(answer).map((s) => s.text);

describe('splitSentences', () => {
  test('splits at a period, question or exclamation mark followed by a space and a capital', () => {
    assert.deepEqual(texts('Acme is good. Is Globex better? Yes! It is.'), ['Acme is good.', 'Is Globex better?', 'Yes!', 'It is.']);
  });

  test('keeps offsets into the answer', () => {
    const answer = '  Acme is good.   Globex is better.';
    for (const s of splitSentences(answer)) assert.equal(answer.slice(s.start, s.end), s.text);
  });

  test('does not split after abbreviations, initials or inside decimals, domains and URLs', () => {
    assert.deepEqual(texts('Tools with integrations (e.g. Globex and Acme) are easier. Acme Inc. Is a vendor.'), [
      'Tools with integrations (e.g. Globex and Acme) are easier.',
      'Acme Inc. Is a vendor.',
    ]);
    assert.deepEqual(texts('Acme scores 4.5 out of 5 vs. Globex at 3.9. See https://acme.com/pricing?plan=pro. J. Smith founded acme.com in 2012.'), [
      'Acme scores 4.5 out of 5 vs. Globex at 3.9.',
      'See https://acme.com/pricing?plan=pro.',
      'J. Smith founded acme.com in 2012.',
    ]);
    assert.deepEqual(texts('It is cheap, i.e. Acme wins. Also U.S. Teams like it.'), ['It is cheap, i.e. Acme wins.', 'Also U.S. Teams like it.']);
  });

  test('does not split before a lower-case word ("... etc. and more", an ellipsis)', () => {
    assert.deepEqual(texts('Acme has CRM, email, etc. and more... really. Globex too.'), ['Acme has CRM, email, etc. and more... really.', 'Globex too.']);
  });

  test('a closing quote or bracket stays with its sentence', () => {
    assert.deepEqual(texts('Reviewers say "Acme is great." Globex (a rival.) Fine.'), ['Reviewers say "Acme is great."', 'Globex (a rival.)', 'Fine.']);
  });

  test('each line is its own sentence, list markers left out, empty and decorative lines dropped', () => {
    const answer = ['## Best CRMs', '', '1. Acme CRM: strong on integrations', '2) Globex - powerful. Pricey.', '- Initech', '* **Acme** – cheap', '• Globex', '---', '| Acme | $12 |', '|---|---|'].join('\n');
    assert.deepEqual(texts(answer), ['Best CRMs', 'Acme CRM: strong on integrations', 'Globex - powerful.', 'Pricey.', 'Initech', '**Acme** – cheap', 'Globex', '| Acme | $12 |']);
  });

  test('handles CRLF line ends and text without a final period', () => {
    assert.deepEqual(texts('Acme is good\r\nGlobex is better'), ['Acme is good', 'Globex is better']);
  });

  test('an empty answer has no sentences', () => {
    assert.deepEqual(splitSentences(''), []);
    assert.deepEqual(splitSentences(' \n\n '), []);
  });
});

describe('sentencesNaming', () => {
  test('gives each subject the sentences that name it, by name, alias or domain', () => {
    const answer = 'Acme CRM is popular. Globex is pricier than Acme. Pricing starts at $12. See globex.io for details.';
    const named = sentencesNaming(answer, subjects);
    assert.deepEqual([...named.keys()], ['acme', 'globex']);
    assert.deepEqual(named.get('acme')!.map((s) => s.text), ['Acme CRM is popular.', 'Globex is pricier than Acme.']);
    assert.deepEqual(named.get('globex')!.map((s) => s.text), ['Globex is pricier than Acme.', 'See globex.io for details.']);
  });

  test('matching is word-bounded and case-insensitive, as the mention finder', () => {
    const named = sentencesNaming('ACME is fine. Acmeville is a town. Globexia is not Globex.', subjects);
    assert.deepEqual(named.get('acme')!.map((s) => s.text), ['ACME is fine.']);
    assert.deepEqual(named.get('globex')!.map((s) => s.text), ['Globexia is not Globex.']);
  });

  test('a subject the answer does not name is absent', () => {
    assert.equal(sentencesNaming('Acme is good.', subjects).has('globex'), false);
    assert.equal(sentencesNaming('Nothing here.', subjects).size, 0);
  });

  test('a name ending in "Inc." is not cut: the suffix does not end a sentence (at the price of joining the next one)', () => {
    const named = sentencesNaming('We like Initech Inc. Their support is great. Globex is fine.', subjects);
    assert.deepEqual(named.get('initech')!.map((s) => s.text), ['We like Initech Inc. Their support is great.']);
  });

  test('a name straddling a sentence break gets the sentences around it', () => {
    const odd: Subject[] = [{ type: 'brand', id: 'dot', name: 'Go. Team', domain: 'goteam.example', aliases: [] }];
    const named = sentencesNaming('We tried Go. Team members liked it. Others did not.', odd);
    assert.deepEqual(named.get('dot')!.map((s) => s.text), ['We tried Go. Team members liked it.']);
  });

  test('names exactly the subjects findMentions finds, on any text', () => {
    const pieces = ['Acme', 'acme.com', 'Acme CRM', 'Globex', 'globex.io', 'Initech Inc.', 'Initech', ' is good', '. ', '! ', '? ', '\n', '- ', '1. ', 'e.g. ', 'Inc. ', ' and ', 'x', '4.5', '(', ')', 'Acmes'];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), (parts) => {
        const answer = parts.join('');
        const want = findMentions(answer, subjects).map((m) => m.subject.id).sort();
        const got = [...sentencesNaming(answer, subjects).keys()].sort();
        assert.deepEqual(got, want, answer);
        for (const list of sentencesNaming(answer, subjects).values()) for (const s of list) assert.equal(answer.slice(s.start, s.end), s.text);
      }),
      { numRuns: 500 },
    );
  });
});
