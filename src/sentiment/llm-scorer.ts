import type { Outbound } from '../outbound/outbound.ts';
import { findMentions, type Subject } from '../runs/subjects.ts';
import { callProvider, type ClassifyError } from '../sampling/providers/call-provider.ts';
import { parseOpenAiResponse } from '../sampling/providers/openai.ts';
import { ProviderError } from '../sampling/providers/provider.ts';
import { asString, isObject } from '../sampling/providers/read-json.ts';
import { sentencesNaming } from './sentences.ts';

export interface LlmScorerOptions {
  outbound: Outbound;
  apiKey: string;
  /** As OPENAI_BASE_URL: without a trailing slash, already ending in `/v1`. */
  baseUrl: string;
  model: string;
  timeoutMs: number;
}

export interface LlmMentionScore {
  /** 0-100, 50 being neutral. */
  score: number;
  method: `llm:${string}`;
  /** The model's one-line reason, for the record. */
  reason: string;
}

/** Longer answers are sent as the sentences that name the subjects (tokens cost money; the rest says nothing of them). */
export const MAX_ANSWER_CHARS = 60_000;
const MAX_REASON_CHARS = 300;
const FORMAT_NAME = 'mention_sentiment';

const INSTRUCTIONS = [
  'You rate how an answer from an AI assistant portrays each listed company or product (a "subject").',
  'For each subject give a score from 0 to 100: 0 = very negative (criticised, advised against), 50 = neutral',
  '(only named, described factually, or pros and cons in balance), 100 = very positive (praised, recommended).',
  'Judge only what the answer says about that subject, comparisons with other subjects included; ignore what',
  'you know about it from elsewhere. Give a one-line reason quoting or paraphrasing the answer.',
  'Score every listed subject once, naming it exactly as listed.',
].join(' ');

/**
 * Scores each subject an answer names with an OpenAI model, in one Responses API request with a
 * strict JSON schema (a score and a one-line reason per subject). The reply is checked: a subject
 * not asked about, one scored twice, or a score outside 0-100 make the whole reply malformed; a
 * subject the model left out is absent from the result (unscored). No subject named: no request,
 * an empty map. Failures are ProviderErrors (the guarded client, HTTP statuses as
 * call-provider.ts maps them, OpenAI's quota codes, a refusal); the caller leaves the mentions
 * unscored then, never 50.
 */
export async function scoreMentionsLlm(answer: string, subjects: readonly Subject[], options: LlmScorerOptions): Promise<Map<string, LlmMentionScore>> {
  const named = findMentions(answer, subjects).map((m) => m.subject);
  if (named.length === 0) return new Map();
  const keys = keysOf(named);
  const body = await callProvider(
    options.outbound,
    {
      method: 'POST',
      url: `${options.baseUrl}/responses`,
      headers: { authorization: `Bearer ${options.apiKey}` },
      body: sentimentRequestBody(answerText(answer, subjects), named, keys, options.model),
      timeoutMs: options.timeoutMs,
    },
    classifyOpenAi,
  );
  // The chatgpt adapter's reading of a reply: the output_text parts, a failed or refused response as a ProviderError.
  const capture = parseOpenAiResponse(body, options.model);
  if (capture.outcome !== 'ok') throw new ProviderError('refused', capture.reason, { status: 200 });
  return readScores(capture.answer, named, keys, `llm:${options.model}`);
}

/** What the model is told each subject is called: its name, or name and domain where two share a name. */
function keysOf(named: readonly Subject[]): string[] {
  const counts = new Map<string, number>();
  for (const s of named) counts.set(s.name.toLowerCase(), (counts.get(s.name.toLowerCase()) ?? 0) + 1);
  return named.map((s) => ((counts.get(s.name.toLowerCase()) ?? 0) > 1 ? `${s.name} (${s.domain})` : s.name));
}

function answerText(answer: string, subjects: readonly Subject[]): string {
  if (answer.length <= MAX_ANSWER_CHARS) return answer;
  const sentences = [...sentencesNaming(answer, subjects).values()].flat().sort((a, b) => a.start - b.start);
  const lines = sentences.filter((s, i) => i === 0 || s.start !== sentences[i - 1]!.start).map((s) => s.text);
  return lines.join('\n').slice(0, MAX_ANSWER_CHARS);
}

function sentimentRequestBody(answer: string, named: readonly Subject[], keys: readonly string[], model: string): Record<string, unknown> {
  const list = named.map((s, i) => {
    const other = [...s.aliases, s.domain].filter((t) => t.trim() !== '' && t.toLowerCase() !== keys[i]!.toLowerCase());
    return `- ${keys[i]}${other.length > 0 ? ` (also written: ${other.join(', ')})` : ''}`;
  });
  const schema = {
    type: 'object',
    properties: {
      scores: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            subject: { type: 'string', enum: [...keys] },
            score: { type: 'integer', description: '0 very negative, 50 neutral, 100 very positive' },
            reason: { type: 'string', description: 'one line' },
          },
          required: ['subject', 'score', 'reason'],
          additionalProperties: false,
        },
      },
    },
    required: ['scores'],
    additionalProperties: false,
  };
  // store: false: OpenAI keeps no copy of the answer.
  return {
    model,
    instructions: INSTRUCTIONS,
    input: `Subjects:\n${list.join('\n')}\n\nAnswer:\n<<<\n${answer}\n>>>`,
    text: { format: { type: 'json_schema', name: FORMAT_NAME, schema, strict: true } },
    store: false,
  };
}

function readScores(text: string, named: readonly Subject[], keys: readonly string[], method: `llm:${string}`): Map<string, LlmMentionScore> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed(`the scores are not JSON: ${text.slice(0, 120)}`);
  }
  if (!isObject(parsed) || !Array.isArray(parsed.scores)) throw malformed('the scores have no `scores` list');
  const byKey = new Map(keys.map((k, i) => [k, named[i]!]));
  const scores = new Map<string, LlmMentionScore>();
  for (const entry of parsed.scores) {
    if (!isObject(entry)) throw malformed('a score is not an object');
    const key = asString(entry.subject);
    const subject = key === undefined ? undefined : byKey.get(key);
    if (!subject) throw malformed(`a score names a subject that was not asked about: ${JSON.stringify(entry.subject)}`);
    if (scores.has(subject.id)) throw malformed(`${key} is scored twice`);
    const score = entry.score;
    if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 100) throw malformed(`${key}'s score is not a number from 0 to 100: ${JSON.stringify(score)}`);
    if (typeof entry.reason !== 'string') throw malformed(`${key}'s reason is not text`);
    scores.set(subject.id, { score: Math.round(score), method, reason: entry.reason.trim().slice(0, MAX_REASON_CHARS) });
  }
  return scores;
}

const malformed = (message: string) => new ProviderError('malformed', message, { status: 200 });

/** OpenAI's money-run-out codes (as the chatgpt adapter reads them): a 429 with one is not a rate limit. */
const QUOTA_CODES = new Set(['insufficient_quota', 'billing_hard_limit_reached', 'billing_not_active']);

const classifyOpenAi: ClassifyError = (_status, body) => {
  const error = isObject(body) && isObject(body.error) ? body.error : {};
  return QUOTA_CODES.has(asString(error.code) ?? '') || QUOTA_CODES.has(asString(error.type) ?? '') ? 'quota' : undefined;
};
