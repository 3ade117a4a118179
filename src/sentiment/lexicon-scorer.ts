import vader from 'vader-sentiment';
import type { Subject } from '../runs/subjects.ts';
import { rewriteDomainWords } from './domain-words.ts';
import { mentionSpans, type MentionSpan } from '../runs/subjects.ts';
import { sentencesNaming, type Sentence } from './sentences.ts';

export const LEXICON_METHOD = 'lexicon:vader-sentiment@1.1.3';

export interface MentionScore {
  /** 0-100: round((compound + 1) * 50), 50 being neutral. */
  score: number;
  method: typeof LEXICON_METHOD;
  /** How many sentences naming the subject the score was taken from. */
  sentences: number;
}

/**
 * The steps between plain VADER on a subject's sentences and the scorer as shipped, each on by
 * default; agreement.test.ts turns them off one at a time to show what each is worth.
 */
export interface LexiconSteps {
  /** Subject names, aliases and domains replaced by a neutral word before scoring ("Happy Desk" is not praise). */
  mask: boolean;
  /** Only the clauses of a sentence that belong to the subject (split on "but", ";", "whereas", ...). */
  clauses: boolean;
  /** A subject's clause followed by a contrast to another subject's clause counts half ("Acme is fine, but Globex is better"). */
  contrast: boolean;
  /** A subject named only as the yardstick of a comparison ("better than Acme", "compared with Acme, Globex ...") gets 0 from that sentence. */
  yardstick: boolean;
  /** Domain words rewritten for VADER (domain-words.ts). */
  domain: boolean;
}

export const ALL_STEPS: LexiconSteps = { mask: true, clauses: true, contrast: true, yardstick: true, domain: true };

/**
 * Scores each subject an answer names from the sentences that name it (never the whole answer):
 * the VADER compound of those sentences, as far as they speak of the subject, joined into one text,
 * mapped to 0-100. A subject named only in sentences without sentiment words gets 50: a neutral
 * score, not a missing one. A subject the answer does not name is absent from the result.
 */
export function scoreMentionsLexicon(answer: string, subjects: readonly Subject[], steps: LexiconSteps = ALL_STEPS): Map<string, MentionScore> {
  const scores = new Map<string, MentionScore>();
  for (const [id, sentences] of sentencesNaming(answer, subjects)) {
    const parts = sentences.map((sentence) => partOf(sentence, id, subjects, steps));
    scores.set(id, { score: Math.round((compoundOf(parts) + 1) * 50), method: LEXICON_METHOD, sentences: sentences.length });
  }
  return scores;
}

/** What a sentence says of one subject: its text for VADER and how much it counts (1 in full). */
interface Part {
  text: string;
  weight: number;
}

/** Parts joined into one text at most; more are scored in runs of this many and averaged. */
const JOIN_LIMIT = 10;

/**
 * The parts scored as one text: VADER sums valences before normalising, so a subject praised in
 * one sentence and named plainly in two more keeps its praise, where averaging per-sentence
 * compounds would pull it towards 50 (the agreement set: joined 160/198, averaged 159/198).
 * Joined in runs of JOIN_LIMIT, averaged by length: a subject named in hundreds of sentences is
 * neither pinned at 0 or 100 by the sum nor slow to score (VADER's "but" rule is quadratic in the
 * words of a text). Parts that count less are scored alone and weighted in.
 */
function compoundOf(parts: readonly Part[]): number {
  const whole = parts.filter((p) => p.weight === 1);
  let sum = 0;
  for (let i = 0; i < whole.length; i += JOIN_LIMIT) {
    const run = whole.slice(i, i + JOIN_LIMIT);
    sum += run.length * compound(run.map((p) => p.text).join(' '));
  }
  for (const p of parts) if (p.weight !== 1 && p.weight !== 0) sum += p.weight * compound(p.text);
  return sum / parts.length;
}

const compound = (text: string) => vader.SentimentIntensityAnalyzer.polarity_scores(text).compound;

/** Stands for every subject name in the text VADER reads; not in its lexicon, not all capitals. */
const PLACEHOLDER = 'Brand';

/** Where a sentence turns from one thing to another; "while" and "though" only as conjunctions. */
const SEPARATOR = /\s*;\s*|,?\s+but\s+|,?\s+whereas\s+|,?\s+while\s+|,\s*however,?\s+|,?\s+although\s+|,\s+though\s+/giu;
/** Separators after which the other side weighs more, as VADER weighs text after "but". */
const CONTRAST = /\b(?:but|however|whereas)\b/iu;

interface Clause {
  start: number;
  end: number;
  /** The separator that ends it ('' for the last). */
  separator: string;
  /** The subjects it names. */
  named: Set<string>;
}

function partOf(sentence: Sentence, id: string, subjects: readonly Subject[], steps: LexiconSteps): Part {
  const text = sentence.text;
  const spans = mentionSpans(text, subjects);
  const read = (start: number, end: number) => {
    let out = steps.mask ? masked(text, spans, start, end) : text.slice(start, end);
    if (steps.domain) out = rewriteDomainWords(out);
    return out;
  };
  const clauses = steps.clauses ? clausesOf(text, spans) : [{ start: 0, end: text.length, separator: '', named: new Set(spans.map((s) => s.subjectId)) }];
  // A clause naming no subject goes on with the subject(s) before it ("..., but its pricing is steep");
  // leading ones go with the first clause that names one.
  let owners = clauses.find((c) => c.named.size > 0)?.named ?? new Set<string>();
  const ownersOf = clauses.map((c) => (owners = c.named.size > 0 ? c.named : owners));
  const mine = ownersOf.map((o) => o.has(id));
  const pieces: string[] = [];
  let last = -1;
  for (let i = 0; i < clauses.length; i++) {
    if (!mine[i]) continue;
    let j = i;
    while (j + 1 < clauses.length && mine[j + 1]) j++;
    pieces.push(read(clauses[i]!.start, clauses[j]!.end));
    last = j;
    i = j;
  }
  // A name straddling a clause break (or a sentence break: sentencesNaming's fallback): the whole text.
  if (last < 0) return { text: read(0, text.length), weight: 1 };
  let weight = 1;
  if (steps.contrast && last + 1 < clauses.length && CONTRAST.test(clauses[last]!.separator) && !mine[last + 1] && ownersOf[last + 1]!.size > 0) weight = 0.5;
  if (steps.yardstick && onlyYardstick(text, spans, clauses, id)) weight = 0;
  return { text: pieces.join(' '), weight };
}

function clausesOf(text: string, spans: readonly MentionSpan[]): Clause[] {
  const clauses: Clause[] = [];
  let start = 0;
  for (const separator of text.matchAll(SEPARATOR)) {
    if (separator.index === 0) continue;
    clauses.push({ start, end: separator.index, separator: separator[0], named: namedIn(spans, start, separator.index) });
    start = separator.index + separator[0].length;
  }
  clauses.push({ start, end: text.length, separator: '', named: namedIn(spans, start, text.length) });
  return clauses;
}

function namedIn(spans: readonly MentionSpan[], start: number, end: number): Set<string> {
  return new Set(spans.filter((s) => s.start >= start && s.end <= end).map((s) => s.subjectId));
}

function masked(text: string, spans: readonly MentionSpan[], start: number, end: number): string {
  let out = '';
  let at = start;
  for (const s of spans) {
    if (s.start < start || s.end > end) continue;
    out += text.slice(at, s.start) + PLACEHOLDER;
    at = s.end;
  }
  return out + text.slice(at, end);
}

const AFTER_COMPARATIVE = /\b(?:than|over)\s+(?:the\s+)?$/iu;
const BEFORE_SUBJECT = /\b(?:compared\s+(?:with|to)|unlike|versus|vs\.?)\s+$/iu;

/**
 * Whether every naming of the subject in the sentence is the yardstick of a comparison about
 * another subject in the same clause: "Globex is better than Acme", "choose Globex over Acme",
 * "Compared with Acme, Globex ...". The comparison's words are about the other subject.
 */
function onlyYardstick(text: string, spans: readonly MentionSpan[], clauses: readonly Clause[], id: string): boolean {
  const own = spans.filter((s) => s.subjectId === id);
  return own.length > 0 && own.every((s) => {
    const clause = clauses.find((c) => s.start >= c.start && s.end <= c.end);
    if (!clause) return false;
    const before = text.slice(Math.max(clause.start, s.start - 40), s.start);
    const others = spans.filter((o) => o.subjectId !== id && o.start >= clause.start && o.end <= clause.end);
    if (AFTER_COMPARATIVE.test(before) && others.some((o) => o.end <= s.start)) return true;
    return BEFORE_SUBJECT.test(before) && others.some((o) => o.start >= s.end);
  });
}
