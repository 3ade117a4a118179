/** A tracked subject of a project: the brand (id = project id) or a competitor. */
export interface Subject {
  type: 'brand' | 'competitor';
  id: string;
  name: string;
  domain: string;
  aliases: readonly string[];
}

/** Whether two lists name the same subjects, in the same order, by the same names and domains. */
export function sameSubjects(a: readonly Subject[], b: readonly Subject[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  return a.every((s, i) => {
    const t = b[i]!;
    return s.type === t.type && s.id === t.id && s.name === t.name && s.domain === t.domain && s.aliases.join('\n') === t.aliases.join('\n');
  });
}

/** The names a subject goes by: its name, aliases and domain, lower-cased. */
export function termsOf(subject: Subject): string[] {
  return [...new Set([subject.name, ...subject.aliases, subject.domain].map((t) => t.toLowerCase()))];
}

interface Vocabulary {
  /** Each term (lower-cased) and the first subject going by it. */
  owner: Map<string, Subject>;
  /** Every term, word-bounded, longest first; null when there are none. */
  pattern: RegExp | null;
}

/** Made once per list of subjects (a batch's), not once per run. */
const vocabularies = new WeakMap<readonly Subject[], Vocabulary>();

function vocabularyOf(subjects: readonly Subject[]): Vocabulary {
  let vocabulary = vocabularies.get(subjects);
  if (vocabulary) return vocabulary;
  const owner = new Map<string, Subject>();
  for (const subject of subjects) {
    for (const term of termsOf(subject)) if (!owner.has(term)) owner.set(term, subject);
  }
  const terms = [...owner.keys()].filter((t) => t.length > 0).sort((a, b) => b.length - a.length);
  const pattern = terms.length === 0 ? null : new RegExp(`(?<![\\p{L}\\p{N}_])(?:${terms.map(escape).join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  vocabulary = { owner, pattern };
  vocabularies.set(subjects, vocabulary);
  return vocabulary;
}

/** The subject a mention names (by name, alias or domain, case-insensitive), or undefined if untracked. */
export function resolveSubject(subjects: readonly Subject[], name: string): Subject | undefined {
  return vocabularyOf(subjects).owner.get(name.trim().toLowerCase());
}

export interface FoundMention {
  subject: Subject;
  position: number;
  count: number;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where a subject is named in a text: `text.slice(start, end)` is the term that matched. */
export interface MentionSpan {
  subjectId: string;
  subject: Subject;
  start: number;
  end: number;
}

/**
 * Every place a text names a tracked subject: each name, alias and domain, word-bounded and
 * case-insensitive, longest term first so "Acme CRM" is one mention, not "Acme" plus a stray; a
 * term shared by two subjects goes to the first. The one matcher of mentions (findMentions, and
 * the sentiment scorers' sentences naming a subject).
 */
export function mentionSpans(text: string, subjects: readonly Subject[]): MentionSpan[] {
  const { owner, pattern } = vocabularyOf(subjects);
  if (!pattern) return [];
  const spans: MentionSpan[] = [];
  for (const match of text.matchAll(pattern)) {
    const subject = owner.get(match[0].toLowerCase());
    if (subject) spans.push({ subjectId: subject.id, subject, start: match.index, end: match.index + match[0].length });
  }
  return spans;
}

/**
 * The tracked subjects an answer names (mentionSpans): `count` is how many times each subject is
 * named; `position` orders subjects by first occurrence.
 */
export function findMentions(answer: string, subjects: readonly Subject[]): FoundMention[] {
  const found = new Map<string, { subject: Subject; first: number; count: number }>();
  for (const span of mentionSpans(answer, subjects)) {
    const entry = found.get(span.subjectId);
    if (entry) entry.count++;
    else found.set(span.subjectId, { subject: span.subject, first: span.start, count: 1 });
  }
  return [...found.values()]
    .sort((a, b) => a.first - b.first)
    .map((e, i) => ({ subject: e.subject, position: i + 1, count: e.count }));
}
