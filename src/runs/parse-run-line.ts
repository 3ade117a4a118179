import { normalizeUrl } from './normalize-url.ts';
import { ARTICLE_TYPES, CITATION_STATUSES, ENGINE_KEYS, includes, type ArticleType, type CitationStatus, type EngineKey } from './vocabulary.ts';

/** One run record (operations.md section 3), validated and normalised. */
export interface RunRecord {
  id: string | undefined;
  engine: EngineKey;
  prompt: string;
  topic: string | undefined;
  branded: boolean;
  /** '' when none. */
  location: string;
  ranAt: Date;
  /** The UTC date of ranAt. */
  day: string;
  /** no_answer: the surface showed no AI answer (counts nowhere, like failed). */
  status: RunStatus;
  answer: string | undefined;
  mentions: MentionInput[] | undefined;
  citations: CitationInput[];
  ads: AdInput[];
  /** Who answered and how: set for sampled runs, absent for imported ones. */
  provenance?: RunProvenance;
  /** A sampled answer's sentiment per subject it names (by subject id), and the scorer; a subject absent is unscored. */
  sentiment?: { scores: ReadonlyMap<string, number>; method: string };
}

export type RunStatus = 'ok' | 'failed' | 'no_answer';

export interface RunProvenance {
  checkId: string;
  provider: string;
  model: string;
  surface: 'api' | 'serp';
  latencyMs: number;
  costUsd: number | null;
  sourceUrls: string[];
  fanOutQueries: string[];
  /** Why it failed or had no answer. */
  reason: string | null;
}

export interface MentionInput {
  subject: string;
  position: number | undefined;
  sentiment: number | undefined;
  count: number;
}

export interface CitationInput {
  /** The page's identity (normalize-url.ts). */
  url: string;
  /** As cited, for display. */
  rawUrl: string;
  status: CitationStatus;
  articleType: ArticleType | undefined;
}

export interface AdInput {
  advertiser: string;
  url: string | undefined;
}

export type ParsedLine = { ok: true; record: RunRecord } | { ok: false; message: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
const MAX_TEXT = 1_000;
const MAX_ANSWER = 200_000;
const MAX_ITEMS = 200;
/** The earliest run time accepted: before any answer engine existed is a typo, not history. */
export const EARLIEST_RUN = Date.UTC(2020, 0, 1);
/** How far ahead of the clock a run time may be (clock skew), no further. */
export const FUTURE_SLACK_MS = 86_400_000;

class LineError extends Error {}

function fail(message: string): never {
  throw new LineError(message);
}

/**
 * Parses one JSON Lines record; the message says what is wrong, field by field. Everything a
 * PostgreSQL column could refuse is refused here, line by line: characters text cannot hold (NUL,
 * unpaired surrogates), numbers out of range, run times outside 2020 to tomorrow.
 */
export function parseRunLine(line: string, now: Date = new Date()): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, message: 'not valid JSON' };
  }
  try {
    return { ok: true, record: toRecord(value, now) };
  } catch (error) {
    if (error instanceof LineError) return { ok: false, message: error.message };
    throw error;
  }
}

function toRecord(value: unknown, now: Date): RunRecord {
  if (!isObject(value)) fail('a run must be a JSON object');
  const id = optional(value, 'id', (v) => (typeof v === 'string' && UUID.test(v) ? v.toLowerCase() : fail('`id` must be a UUID')));
  const engine = value.engine;
  if (!includes(ENGINE_KEYS, engine)) fail(`\`engine\` must be one of ${ENGINE_KEYS.join(', ')}`);
  const prompt = text(value.prompt, '`prompt`', MAX_TEXT);
  if (prompt === undefined) fail('`prompt` is required');
  const topic = optional(value, 'topic', (v) => text(v, '`topic`', 200));
  const branded = optional(value, 'branded', (v) => (typeof v === 'boolean' ? v : fail('`branded` must be true or false'))) ?? false;
  const location = optional(value, 'location', (v) => text(v, '`location`', 100)) ?? '';
  if (typeof value.ranAt !== 'string' || !DATE_TIME.test(value.ranAt)) {
    fail('`ranAt` must be an ISO 8601 date-time with a time zone, like 2026-11-01T09:00:00Z');
  }
  const ranAt = new Date(value.ranAt);
  if (Number.isNaN(ranAt.getTime()) || !realCalendarTime(value.ranAt)) fail('`ranAt` is not a real date-time');
  if (ranAt.getTime() < EARLIEST_RUN) fail('`ranAt` is before 2020: answer engines were not sampled then');
  if (ranAt.getTime() > now.getTime() + FUTURE_SLACK_MS) fail(`\`ranAt\` is in the future (after ${new Date(now.getTime() + FUTURE_SLACK_MS).toISOString()})`);
  const status = value.status;
  if (status !== 'ok' && status !== 'failed' && status !== 'no_answer') fail('`status` must be ok, failed or no_answer');
  const answer = optional(value, 'answer', (v) => storable(typeof v === 'string' && v.length <= MAX_ANSWER ? v : fail(`\`answer\` must be a string of at most ${MAX_ANSWER} characters`), '`answer`'));
  const mentions = optional(value, 'mentions', (v) => list(v, '`mentions`').map((m, i) => mention(m, i)));
  const citations = optional(value, 'citations', (v) => list(v, '`citations`').map((c, i) => citation(c, i))) ?? [];
  const ads = optional(value, 'ads', (v) => list(v, '`ads`').map((a, i) => ad(a, i))) ?? [];
  return {
    id,
    engine,
    prompt,
    topic,
    branded,
    location,
    ranAt,
    day: ranAt.toISOString().slice(0, 10),
    status,
    answer,
    mentions,
    citations,
    ads,
  };
}

function mention(value: unknown, i: number): MentionInput {
  const at = `\`mentions[${i}]\``;
  if (!isObject(value)) fail(`${at} must be an object`);
  const subject = text(value.subject, `${at}.subject`, 200);
  if (subject === undefined) fail(`${at}.subject is required`);
  const position = optional(value, 'position', (v) => (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 1000 ? (v as number) : fail(`${at}.position must be a whole number from 1`)));
  const sentiment = optional(value, 'sentiment', (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 100 ? v : fail(`${at}.sentiment must be a number from 0 to 100, or absent`),
  );
  const count = optional(value, 'count', (v) => (Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 10_000 ? (v as number) : fail(`${at}.count must be a whole number from 1`))) ?? 1;
  return { subject, position, sentiment, count };
}

/**
 * Cited URLs already parsed, by the string cited: an import cites the same few thousand pages
 * again and again. Bounded: cleared when full.
 */
const parsedUrls = new Map<string, { rawUrl: string; url: string }>();

function citation(value: unknown, i: number): CitationInput {
  const at = `\`citations[${i}]\``;
  if (!isObject(value)) fail(`${at} must be an object`);
  let parsed = typeof value.url === 'string' ? parsedUrls.get(value.url) : undefined;
  if (!parsed) {
    const rawUrl = httpUrl(value.url, `${at}.url`);
    parsed = { rawUrl, url: normalizeUrl(rawUrl)! };
    if (parsedUrls.size >= 50_000) parsedUrls.clear();
    parsedUrls.set(value.url as string, parsed);
  }
  const { rawUrl, url } = parsed;
  const status = optional(value, 'status', (v) => (includes(CITATION_STATUSES, v) ? v : fail(`${at}.status must be one of ${CITATION_STATUSES.join(', ')}`))) ?? 'unchecked';
  const articleType = optional(value, 'articleType', (v) => (includes(ARTICLE_TYPES, v) ? v : fail(`${at}.articleType must be one of ${ARTICLE_TYPES.join(', ')}`)));
  return { url, rawUrl, status, articleType };
}

function ad(value: unknown, i: number): AdInput {
  const at = `\`ads[${i}]\``;
  if (!isObject(value)) fail(`${at} must be an object`);
  const advertiser = text(value.advertiser, `${at}.advertiser`, 300);
  if (advertiser === undefined) fail(`${at}.advertiser is required`);
  const url = optional(value, 'url', (v) => httpUrl(v, `${at}.url`));
  return { advertiser, url };
}

/** An absolute http(s) URL, as given but for its fragment (parsed: lower-case host, encoded characters). */
function httpUrl(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length > 2_000) fail(`${name} must be an http(s) URL of at most 2000 characters`);
  storable(value, name);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(`${name} must be an absolute http(s) URL`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') fail(`${name} must be an absolute http(s) URL`);
  url.hash = '';
  return url.href;
}

/** Date.parse rolls 2026-02-31 over into March; a record with such a date is wrong, not late. */
function realCalendarTime(value: string): boolean {
  const [y, mo, d, h, mi, se] = value.split(/[-T:.Zz+]/).map(Number) as number[];
  const day = new Date(Date.UTC(y!, mo! - 1, d!));
  return day.getUTCMonth() === mo! - 1 && day.getUTCDate() === d && h! <= 23 && mi! <= 59 && (Number.isNaN(se) || se === undefined || se <= 59);
}

function text(value: unknown, name: string, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') fail(`${name} must be a string`);
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (trimmed.length > max) fail(`${name} must be at most ${max} characters`);
  return storable(trimmed, name);
}

/**
 * Text PostgreSQL can store: no NUL character (text columns cannot hold one) and no unpaired UTF-16
 * surrogate (it has no UTF-8 form; the driver would silently turn it into U+FFFD).
 */
function storable(value: string, name: string): string {
  if (value.includes('\u0000')) fail(`${name} contains a NUL character (\\u0000), which cannot be stored`);
  if (!value.isWellFormed()) fail(`${name} contains an unpaired surrogate (invalid Unicode), which cannot be stored`);
  return value;
}

function list(value: unknown, name: string): unknown[] {
  if (!Array.isArray(value)) fail(`${name} must be an array`);
  if (value.length > MAX_ITEMS) fail(`${name} may hold at most ${MAX_ITEMS} items`);
  return value;
}

function optional<T>(object: Record<string, unknown>, key: string, read: (value: unknown) => T): T | undefined {
  const value = object[key];
  return value === undefined || value === null ? undefined : read(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
