import { randomUUID } from 'node:crypto';
import { classifyArticleType, hostIsUnder } from './classify-url.ts';
import type { RunRecord } from './parse-run-line.ts';
import { findMentions, resolveSubject, termsOf, type Subject } from './subjects.ts';
import type { ArticleType, CitationStatus } from './vocabulary.ts';

export interface ResolvedMention {
  subject: Subject;
  position: number | null;
  sentiment: number | null;
  count: number;
}

export interface ResolvedCitation {
  /** Normalised: the page's identity. */
  url: string;
  /** As first cited in this run. */
  rawUrl: string;
  host: string;
  status: CitationStatus;
  articleType: ArticleType;
  /** The subject whose page it is, if any (the most specific domain wins). */
  owner: Subject | undefined;
}

export interface ResolvedAd {
  advertiser: string;
  url: string | undefined;
  competitor: Subject | undefined;
}

/** A run with everything in it tied to the project's tracked subjects. */
export interface ResolvedRun {
  /** The run's id (given, or made up for a run without one). */
  id: string;
  record: RunRecord;
  mentions: ResolvedMention[];
  /** Each page once, in the order first cited. */
  citations: ResolvedCitation[];
  ads: ResolvedAd[];
}

/**
 * The resolve step: a parsed run against the subjects tracked now. Mentions as listed (untracked
 * names are not ours to count and are left out) or, without a list, found in the answer; cited
 * pages deduplicated (a run cites a page once) and credited to their subject; ads matched to
 * competitors. A subject listed twice is the line's error (a string).
 */
export function resolveRun(record: RunRecord, id: string, subjects: readonly Subject[]): ResolvedRun | string {
  const mentions = resolveMentions(record, subjects);
  if (typeof mentions === 'string') return mentions;
  const citations: ResolvedCitation[] = [];
  const seen = new Set<string>();
  const pages = pagesOf(subjects);
  for (const c of record.citations) {
    if (seen.has(c.url)) continue;
    seen.add(c.url);
    let page = pages.get(c.url);
    if (!page) {
      const host = new URL(c.url).hostname;
      page = { host, articleType: classifyArticleType(c.url), owner: citedSubject(subjects, host) };
      if (pages.size >= 50_000) pages.clear();
      pages.set(c.url, page);
    }
    citations.push({ url: c.url, rawUrl: c.rawUrl, host: page.host, status: c.status, articleType: c.articleType ?? page.articleType, owner: page.owner });
  }
  const ads = record.ads.map((ad) => ({ advertiser: ad.advertiser, url: ad.url, competitor: advertiserCompetitor(subjects, ad.advertiser, ad.url) }));
  return { id, record, mentions, citations, ads };
}

interface PageFacts {
  host: string;
  /** As classified from the URL (a citation may name its own). */
  articleType: ArticleType;
  owner: Subject | undefined;
}

/** What each page is, per list of subjects (its owner depends on them): pages recur across runs. */
const pageFacts = new WeakMap<readonly Subject[], Map<string, PageFacts>>();

function pagesOf(subjects: readonly Subject[]): Map<string, PageFacts> {
  let pages = pageFacts.get(subjects);
  if (!pages) pageFacts.set(subjects, (pages = new Map()));
  return pages;
}

/** A batch of runs resolved against one list of subjects. */
export interface ResolvedBatch {
  records: readonly RunRecord[];
  subjects: readonly Subject[];
  runs: ResolvedRun[];
  /** Runs that repeat an id earlier in the batch. */
  repeated: number;
  /** Runs refused, by their index in the batch, with the reason. */
  rejected: { index: number; message: string }[];
}

/** The resolve step for a batch: each run resolved, a run without an id given one, a repeated id skipped. */
export function resolveRuns(records: readonly RunRecord[], subjects: readonly Subject[]): ResolvedBatch {
  const batch: ResolvedBatch = { records, subjects, runs: [], repeated: 0, rejected: [] };
  const ids = new Set<string>();
  for (const [index, record] of records.entries()) {
    const id = record.id ?? randomUUID();
    if (ids.has(id)) {
      batch.repeated++;
      continue;
    }
    const run = resolveRun(record, id, subjects);
    if (typeof run === 'string') {
      batch.rejected.push({ index, message: run });
      continue;
    }
    ids.add(id);
    batch.runs.push(run);
  }
  return batch;
}

function resolveMentions(record: RunRecord, subjects: readonly Subject[]): ResolvedMention[] | string {
  if (record.mentions === undefined) {
    if (record.answer === undefined) return [];
    const scores = record.sentiment?.scores;
    return findMentions(record.answer, subjects).map((m) => ({ subject: m.subject, position: m.position, sentiment: scores?.get(m.subject.id) ?? null, count: m.count }));
  }
  const out: ResolvedMention[] = [];
  for (const [i, m] of record.mentions.entries()) {
    const subject = resolveSubject(subjects, m.subject);
    if (!subject) continue;
    if (out.some((o) => o.subject.id === subject.id)) {
      return `\`mentions[${i}]\` names ${subject.name} again; give one mention per subject`;
    }
    out.push({ subject, position: m.position ?? null, sentiment: m.sentiment ?? null, count: m.count });
  }
  return out;
}

/** The competitor behind an ad: by name, alias or domain of the advertiser, or by the ad URL's host. */
export function advertiserCompetitor(subjects: readonly Subject[], advertiser: string, url: string | undefined): Subject | undefined {
  const competitors = subjects.filter((s) => s.type === 'competitor');
  const named = advertiser.trim().toLowerCase();
  const byName = competitors.find((c) => termsOf(c).includes(named) || hostIsUnder(named, c.domain));
  if (byName) return byName;
  if (url === undefined) return undefined;
  const host = new URL(url).hostname.toLowerCase();
  return competitors.find((c) => hostIsUnder(host, c.domain));
}

/**
 * The subject a cited URL belongs to: the one whose domain its host is, or is under; the most
 * specific domain wins (a competitor on `shop.acme.com` owns its pages, the brand `acme.com` the rest).
 */
export function citedSubject(subjects: readonly Subject[], host: string): Subject | undefined {
  let owner: Subject | undefined;
  for (const s of subjects) {
    if (hostIsUnder(host, s.domain) && (!owner || s.domain.length > owner.domain.length)) owner = s;
  }
  return owner;
}
