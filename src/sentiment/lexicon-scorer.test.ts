import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Subject } from '../runs/subjects.ts';
import { rewriteDomainWords } from './domain-words.ts';
import { ALL_STEPS, LEXICON_METHOD, scoreMentionsLexicon } from './lexicon-scorer.ts';

const subjects: Subject[] = [
  { type: 'brand', id: 'acme', name: 'Acme', domain: 'acme.com', aliases: ['Acme CRM'] },
  { type: 'competitor', id: 'globex', name: 'Globex', domain: 'globex.io', aliases: [] },
  { type: 'competitor', id: 'happy', name: 'Happy Desk', domain: 'happydesk.io', aliases: [] },
];

const score = (answer: string, id: string) => scoreMentionsLexicon(answer, subjects).get(id)?.score;

describe('scoreMentionsLexicon', () => {
  test('praise scores high, with the method and the number of sentences', () => {
    const scores = scoreMentionsLexicon('Acme CRM is excellent and highly recommended for small teams.', subjects);
    assert.deepEqual([...scores.keys()], ['acme']);
    const acme = scores.get('acme')!;
    assert.ok(acme.score >= 75, `got ${acme.score}`);
    assert.equal(acme.method, LEXICON_METHOD);
    assert.equal(acme.method, 'lexicon:vader-sentiment@1.1.3');
    assert.equal(acme.sentences, 1);
  });

  test('criticism scores low', () => {
    assert.ok(score('Acme is buggy, and users complain about frequent outages.', 'acme')! <= 25);
  });

  test('a plain mention is a neutral score of 50, not a missing one', () => {
    assert.equal(score('Acme was founded in 2012.', 'acme'), 50);
  });

  test('a subject the answer does not name is absent', () => {
    const scores = scoreMentionsLexicon('Acme is great.', subjects);
    assert.equal(scores.has('globex'), false);
    assert.equal(scoreMentionsLexicon('No vendor is named here.', subjects).size, 0);
  });

  test('only the sentences naming the subject count, never the whole answer', () => {
    const answer = 'Acme was founded in 2012. The market is full of terrible, awful tools. Globex is wonderful.';
    assert.equal(score(answer, 'acme'), 50);
    assert.ok(score(answer, 'globex')! >= 70);
    assert.equal(scoreMentionsLexicon(answer, subjects).get('acme')!.sentences, 1);
  });

  test('a comparison: each subject is scored on its own clause', () => {
    const answer = 'Acme is fine for basic contact management, but Globex is better for complex sales pipelines.';
    const acme = score(answer, 'acme')!;
    const globex = score(answer, 'globex')!;
    assert.ok(globex >= 60, `Globex ${globex}`);
    assert.ok(acme > 40 && acme < 60, `Acme ${acme}`);
  });

  test('a subject named only as the yardstick of a comparison is neutral', () => {
    const answer = 'Globex is far better than Acme for enterprises.';
    assert.ok(score(answer, 'globex')! >= 60);
    assert.equal(score(answer, 'acme'), 50);
  });

  test('advice against a subject scores low', () => {
    assert.ok(score('Avoid Acme if you need phone support.', 'acme')! <= 40);
  });

  test('a name that is a sentiment word is not read as praise', () => {
    assert.equal(score('Happy Desk is a help desk for small teams.', 'happy'), 50);
    const plain = scoreMentionsLexicon('Happy Desk is a help desk for small teams.', subjects, { ...ALL_STEPS, mask: false, domain: false }).get('happy')!;
    assert.ok(plain.score > 60, 'without masking, VADER reads "Happy" and "help" as praise');
  });

  test('sentences naming the subject are scored together', () => {
    const scores = scoreMentionsLexicon('## Acme\nAcme was founded in 2012.\nAcme has excellent reporting.', subjects);
    assert.equal(scores.get('acme')!.sentences, 3);
    assert.ok(scores.get('acme')!.score >= 70);
  });
});

describe('rewriteDomainWords', () => {
  test('product nouns are neutral, domain praise and complaints are words VADER knows', () => {
    assert.equal(rewriteDomainWords('Brand supports a free trial and phone support.'), 'Brand covers a entry trial and phone covers.');
    assert.equal(rewriteDomainWords('The app is buggy and expensive but intuitive.'), 'The app is poor and downside but good.');
    assert.equal(rewriteDomainWords('Steer clear of Brand; consider Brand instead.'), 'avoid Brand; recommend Brand instead.');
  });
});
