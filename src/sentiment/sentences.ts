import { findMentions, type Subject } from '../runs/subjects.ts';

/** A sentence of an answer: `answer.slice(start, end) === text`. */
export interface Sentence {
  text: string;
  start: number;
  end: number;
}

/**
 * Words ending in a period that do not end a sentence when a capital follows ("e.g. Globex",
 * "Acme Inc. Globex", "vs. Initech"). "etc." is left out: it ends sentences as often as not.
 * Dotted initialisms ("e.g.", "i.e.", "U.S.") and single initials are caught by shape instead.
 */
const ABBREVIATIONS = new Set([
  'approx', 'cf', 'co', 'corp', 'dept', 'dr', 'eg', 'est', 'fig', 'ie', 'inc', 'jr', 'llc', 'ltd', 'mr', 'mrs', 'ms', 'no', 'nos', 'plc', 'prof', 'sr', 'st', 'vol', 'vs',
]);

/** A list, quote or heading marker at the start of a line: "1. ", "2) ", "- ", "* ", "• ", "## ", "> ". */
const LINE_MARKER = /^(?:\s*(?:[-*+•‣◦]|\d{1,3}[.)]|[a-z][.)]|#{1,6}|>))+\s+/u;

/** A sentence end: terminal punctuation, closing quotes or brackets, then space or the line's end. */
const TERMINAL = /[.!?…]+["'”’)\]*_]*(?=\s|$)/gu;

const HAS_WORD = /[\p{L}\p{N}]/u;

/**
 * Splits an answer into sentences. Each line is split apart (list items, table rows, headings are
 * sentences of their own) with its list marker left out; within a line a sentence ends at `.`,
 * `!`, `?` or `…` followed by a space and then something that is not a lower-case letter, unless
 * the period closes an abbreviation or an initial. Periods inside tokens (decimals, domains, URLs,
 * "e.g.,") never end a sentence. Pieces without a letter or digit (rules, table borders) are dropped.
 */
export function splitSentences(answer: string): Sentence[] {
  const sentences: Sentence[] = [];
  const lines = /[^\r\n\u2028\u2029]+/gu;
  for (const line of answer.matchAll(lines)) {
    const marker = LINE_MARKER.exec(line[0]);
    const offset = line.index + (marker ? marker[0].length : 0);
    const body = marker ? line[0].slice(marker[0].length) : line[0];
    let from = 0;
    for (const end of body.matchAll(TERMINAL)) {
      const at = end.index + end[0].length;
      if (at < body.length && !endsSentence(body, end.index, end[0], at)) continue;
      push(sentences, answer, offset + from, offset + at);
      from = at;
    }
    push(sentences, answer, offset + from, offset + body.length);
  }
  return sentences;
}

/** How far around a period to look for the next word and the word it ends (a line can be long: never scan all of it). */
const WINDOW = 64;

function endsSentence(body: string, punctAt: number, punct: string, after: number): boolean {
  const next = /^\s+(\S)/u.exec(body.slice(after, after + WINDOW));
  if (!next) return true;
  if (/\p{Ll}/u.test(next[1]!)) return false;
  if (!punct.startsWith('.') || punct.startsWith('..')) return true;
  const word = /(\S+)$/u.exec(body.slice(Math.max(0, punctAt - WINDOW), punctAt))?.[1]?.replace(/^["'“‘(\[*_]+/u, '') ?? '';
  if (/^\p{L}$/u.test(word)) return false; // an initial: "J. Smith"
  if (/^(?:\p{L}\.)+\p{L}$/u.test(word)) return false; // "e.g", "U.S"
  return !ABBREVIATIONS.has(word.toLowerCase());
}

function push(sentences: Sentence[], answer: string, start: number, end: number): void {
  const raw = answer.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const text = raw.trim();
  if (!HAS_WORD.test(text)) return;
  sentences.push({ text, start: start + lead, end: start + lead + text.length });
}

/**
 * The sentences of an answer that name each subject, by subject id, in answer order. A subject is
 * here exactly when the mention finder (runs/subjects.ts `findMentions`) finds it in the whole
 * answer. A subject whose only naming straddles a sentence break (a term with a period and a space
 * in it) gets the shortest run of consecutive sentences that names it.
 */
export function sentencesNaming(answer: string, subjects: readonly Subject[]): Map<string, Sentence[]> {
  const mentioned = new Set(findMentions(answer, subjects).map((m) => m.subject.id));
  const named = new Map<string, Sentence[]>();
  if (mentioned.size === 0) return named;
  const sentences = splitSentences(answer);
  for (const sentence of sentences) {
    for (const m of findMentions(sentence.text, subjects)) {
      if (!mentioned.has(m.subject.id)) continue;
      const list = named.get(m.subject.id);
      if (list) list.push(sentence);
      else named.set(m.subject.id, [sentence]);
    }
  }
  for (const id of mentioned) {
    if (named.has(id)) continue;
    const span = shortestRunNaming(answer, sentences, subjects, id);
    if (span) named.set(id, [span]);
  }
  return named;
}

function shortestRunNaming(answer: string, sentences: readonly Sentence[], subjects: readonly Subject[], id: string): Sentence | undefined {
  for (let size = 2; size <= sentences.length; size++) {
    for (let i = 0; i + size <= sentences.length; i++) {
      const start = sentences[i]!.start;
      const end = sentences[i + size - 1]!.end;
      const text = answer.slice(start, end);
      if (findMentions(text, subjects).some((m) => m.subject.id === id)) return { text, start, end };
    }
  }
  return undefined;
}
