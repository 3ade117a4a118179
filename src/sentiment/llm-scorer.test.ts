import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { expectProviderError, useFakeProvider, type FakeReply } from '../../test/fakes/fake-provider.ts';
import type { Subject } from '../runs/subjects.ts';
import { MAX_ANSWER_CHARS, scoreMentionsLlm } from './llm-scorer.ts';

const KEY = 'sk-proj-test-0123';
const MODEL = 'gpt-5-mini';

const { fake, outbound } = useFakeProvider('openai.test');

const subjects: Subject[] = [
  { type: 'brand', id: 'acme', name: 'Acme', domain: 'acme.com', aliases: ['Acme CRM'] },
  { type: 'competitor', id: 'globex', name: 'Globex', domain: 'globex.io', aliases: [] },
  { type: 'competitor', id: 'initech', name: 'Initech', domain: 'initech.com', aliases: [] },
];

const ANSWER = 'Acme CRM is fine for small teams, but Globex is better for complex pipelines.';

function score(answer = ANSWER) {
  // The configured OpenAI base URL ends in /v1, as OPENAI_BASE_URL does.
  return scoreMentionsLlm(answer, subjects, { outbound, apiKey: KEY, baseUrl: `${fake.origin}/v1`, model: MODEL, timeoutMs: 3000 });
}

/** A Responses API reply whose one message holds `text` (the structured output, as a string). */
function reply(text: string, extra: Record<string, unknown> = {}): FakeReply {
  return {
    json: {
      id: 'resp_0123',
      object: 'response',
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: 'gpt-5-mini-2025-08-07',
      output: [
        { type: 'reasoning', id: 'rs_0123', summary: [] },
        { type: 'message', id: 'msg_0123', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] },
      ],
      usage: { input_tokens: 420, output_tokens: 96, total_tokens: 516 },
      ...extra,
    },
  };
}

const scores = (entries: unknown[]) => reply(JSON.stringify({ scores: entries }));

describe('the request', () => {
  test('one POST to {base}/responses with the key, the model and a strict JSON schema over the named subjects', async () => {
    fake.replies.push(scores([]));
    await score();
    assert.equal(fake.requests.length, 1);
    const seen = fake.requests[0]!;
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, '/v1/responses');
    assert.equal(seen.headers.authorization, `Bearer ${KEY}`);
    assert.equal(seen.headers['content-type'], 'application/json');
    const body = seen.body as Record<string, any>;
    assert.equal(body.model, MODEL);
    assert.equal(body.store, false);
    assert.equal(body.text.format.type, 'json_schema');
    assert.equal(body.text.format.strict, true);
    assert.equal(typeof body.text.format.name, 'string');
    assert.deepEqual(body.text.format.schema.properties.scores.items.properties.subject.enum, ['Acme', 'Globex']);
    assert.deepEqual(body.text.format.schema.properties.scores.items.required, ['subject', 'score', 'reason']);
    assert.match(body.input, /- Acme \(also written: Acme CRM, acme\.com\)/);
    assert.doesNotMatch(body.input, /Initech/, 'only the subjects the answer names are asked about');
    assert.ok(body.input.includes(ANSWER));
  });

  test('an answer naming no subject sends nothing', async () => {
    const result = await score('Nobody is named here.');
    assert.equal(result.size, 0);
    assert.equal(fake.requests.length, 0);
  });

  test('a very long answer is sent as the sentences that name the subjects', async () => {
    fake.replies.push(scores([]));
    const filler = 'The market moves fast. '.repeat(Math.ceil(MAX_ANSWER_CHARS / 20));
    await score(`${filler}Acme is great. ${filler}Globex is slow.`);
    const input = (fake.requests[0]!.body as { input: string }).input;
    assert.ok(input.length < 1_000, `sent ${input.length} characters`);
    assert.match(input, /Acme is great\.\nGlobex is slow\./);
  });
});

describe('a good reply', () => {
  test('gives each subject its score, the model as the method and the reason', async () => {
    fake.replies.push(
      scores([
        { subject: 'Acme', score: 48, reason: 'Called fine for small teams, second to Globex.' },
        { subject: 'Globex', score: 78, reason: 'Called better for complex pipelines.' },
      ]),
    );
    const result = await score();
    assert.deepEqual(Object.fromEntries(result), {
      acme: { score: 48, method: 'llm:gpt-5-mini', reason: 'Called fine for small teams, second to Globex.' },
      globex: { score: 78, method: 'llm:gpt-5-mini', reason: 'Called better for complex pipelines.' },
    });
  });

  test('a subject the model left out stays unscored', async () => {
    fake.replies.push(scores([{ subject: 'Globex', score: 80, reason: 'Praised.' }]));
    const result = await score();
    assert.deepEqual([...result.keys()], ['globex']);
  });

  test('a fractional score is rounded', async () => {
    fake.replies.push(scores([{ subject: 'Acme', score: 61.6, reason: 'ok' }]));
    assert.equal((await score()).get('acme')!.score, 62);
  });
});

describe('a malformed reply', () => {
  const cases: [string, FakeReply][] = [
    ['text that is not JSON', reply('Acme: 48, Globex: 78')],
    ['no scores list', reply(JSON.stringify({ acme: 48 }))],
    ['a subject not asked about', scores([{ subject: 'Initech', score: 50, reason: 'x' }])],
    ['a subject scored twice', scores([{ subject: 'Acme', score: 50, reason: 'x' }, { subject: 'Acme', score: 60, reason: 'y' }])],
    ['a score above 100', scores([{ subject: 'Acme', score: 120, reason: 'x' }])],
    ['a negative score', scores([{ subject: 'Acme', score: -1, reason: 'x' }])],
    ['a score that is text', scores([{ subject: 'Acme', score: '70', reason: 'x' }])],
    ['no reason', scores([{ subject: 'Acme', score: 70 }])],
    ['a body without output', { json: { id: 'resp_0123', status: 'completed' } }],
    ['a body that is not JSON', { text: '<html>oops</html>' }],
  ];
  for (const [name, bad] of cases) {
    test(`${name}: malformed, not retried`, async () => {
      fake.replies.push(bad);
      const error = await expectProviderError(score());
      assert.equal(error.failure, 'malformed');
      assert.equal(error.retryable, false);
    });
  }

  test('a refusal is refused', async () => {
    fake.replies.push({
      json: { id: 'resp_0123', status: 'completed', model: MODEL, output: [{ type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] }] },
    });
    const error = await expectProviderError(score());
    assert.equal(error.failure, 'refused');
  });
});

describe('HTTP failures', () => {
  test('429: rate limited, retryable, with the wait asked for', async () => {
    fake.replies.push({ status: 429, headers: { 'retry-after-ms': '1500' }, json: { error: { message: 'Rate limit reached for gpt-5-mini', type: 'requests', code: 'rate_limit_exceeded' } } });
    const error = await expectProviderError(score());
    assert.equal(error.failure, 'rate_limited');
    assert.equal(error.retryable, true);
    assert.equal(error.retryAfterMs, 1500);
    assert.equal(error.status, 429);
  });

  test('429 insufficient_quota: quota, not retried', async () => {
    fake.replies.push({ status: 429, json: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } });
    const error = await expectProviderError(score());
    assert.equal(error.failure, 'quota');
    assert.equal(error.retryable, false);
  });

  test('401: auth, not retried, the provider message kept', async () => {
    fake.replies.push({ status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } } });
    const error = await expectProviderError(score());
    assert.equal(error.failure, 'auth');
    assert.equal(error.retryable, false);
    assert.match(error.message, /Incorrect API key/);
  });

  test('no reply within the time cap: timeout', async () => {
    fake.replies.push('hang');
    const error = await expectProviderError(scoreMentionsLlm(ANSWER, subjects, { outbound, apiKey: KEY, baseUrl: `${fake.origin}/v1`, model: MODEL, timeoutMs: 200 }));
    assert.equal(error.failure, 'timeout');
  });
});
