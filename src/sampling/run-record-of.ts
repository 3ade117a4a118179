import type { Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import type { AdInput, CitationInput, RunRecord } from '../runs/parse-run-line.ts';
import type { CitationStatus } from '../runs/vocabulary.ts';
import { normalizeUrl } from '../runs/normalize-url.ts';
import { utcDay } from '../usage/calendar.ts';
import type { ClaimedCheck } from './claim-checks.ts';
import type { Capture, CapturedAd, ProviderName, Surface } from './providers/provider.ts';

/** What came back from a check's provider: a capture, or the failure that ended it. */
export type CheckAnswer = { provider: ProviderName; surface: Surface; latencyMs: number } & ({ capture: Capture; sentiment?: RunRecord['sentiment'] } | { failure: string; model: string });

/** As the import bounds them (runs/parse-run-line.ts). */
const MAX_ANSWER = 200_000;
const MAX_ITEMS = 200;
const MAX_URL = 2_000;

/** What a batch of check records needs from the database, read once for the batch. */
export interface RecordLookups {
  prompts: ReadonlyMap<string, { text: string; branded: boolean; topic: string | null }>;
  /** The status the project knows for each page the answers cite (by its identity). */
  statuses: ReadonlyMap<string, CitationStatus>;
}

/** The prompts of the checks and the statuses of the pages their answers cite: two statements for a batch. */
export async function readRecordLookups(tx: Transaction<DB>, projectId: string, items: readonly { check: ClaimedCheck; answer: CheckAnswer }[]): Promise<RecordLookups> {
  const promptIds = [...new Set(items.map((i) => i.check.promptId))];
  const rows = promptIds.length
    ? await tx
        .selectFrom('prompts as p')
        .leftJoin('topics as t', (join) => join.onRef('t.project_id', '=', 'p.project_id').onRef('t.id', '=', 'p.topic_id'))
        .select(['p.id', 'p.text', 'p.branded', 't.name as topic'])
        .where('p.project_id', '=', projectId)
        .where('p.id', 'in', promptIds)
        .execute()
    : [];
  const urls = [...new Set(items.flatMap((i) => ('capture' in i.answer && i.answer.capture.outcome === 'ok' ? citationsOf(i.answer.capture.citations).map((c) => c.url) : [])))];
  const known = urls.length ? await tx.selectFrom('cited_urls').select(['url', 'status']).where('project_id', '=', projectId).where('url', 'in', urls).execute() : [];
  return {
    prompts: new Map(rows.map((r) => [r.id, { text: r.text, branded: r.branded, topic: r.topic ?? null }])),
    statuses: new Map(known.map((k) => [k.url, k.status as CitationStatus])),
  };
}

/**
 * The run a check records, as an imported run would be: the prompt's text, topic and brandedness;
 * the check's engine and location; now as its time. The answer's mentions are found in its text
 * (as for an imported run without a mention list), with the sentiment scored for them; its
 * citations are the links the answer shows, each with the status the project knows for the page
 * (a sampled answer says nothing of whether a page exists, so a run recorded after a check never
 * overrides it; a new page is unchecked); its provenance is kept beside. Text a database cannot hold
 * is made storable, and lists are bounded as an import bounds them. Undefined when the prompt is gone.
 */
export function runRecordOf(check: ClaimedCheck, answer: CheckAnswer, now: Date, lookups: RecordLookups): RunRecord | undefined {
  const prompt = lookups.prompts.get(check.promptId);
  if (!prompt) return undefined;
  const base = {
    id: check.id,
    engine: check.engine,
    prompt: prompt.text,
    topic: prompt.topic ?? undefined,
    branded: prompt.branded,
    location: check.location,
    ranAt: now,
    day: utcDay(now),
    mentions: undefined,
  };
  const provenance = { checkId: check.id, provider: answer.provider, surface: answer.surface, latencyMs: answer.latencyMs };
  if ('failure' in answer) {
    return {
      ...base,
      status: 'failed',
      answer: undefined,
      citations: [],
      ads: [],
      provenance: { ...provenance, model: storable(answer.model, 200), costUsd: null, sourceUrls: [], fanOutQueries: [], reason: storable(answer.failure, 1_000) },
    };
  }
  const capture = answer.capture;
  if (capture.outcome === 'no_answer') {
    return {
      ...base,
      status: 'no_answer',
      answer: undefined,
      citations: [],
      ads: [],
      provenance: { ...provenance, model: storable(capture.model, 200), costUsd: capture.costUsd, sourceUrls: [], fanOutQueries: [], reason: storable(capture.reason, 1_000) },
    };
  }
  return {
    ...base,
    status: 'ok',
    answer: storable(capture.answer, MAX_ANSWER),
    ...(answer.sentiment ? { sentiment: answer.sentiment } : {}),
    citations: citationsOf(capture.citations).map((c) => ({ ...c, status: lookups.statuses.get(c.url) ?? 'unchecked' })),
    ads: adsOf(capture.ads),
    provenance: {
      ...provenance,
      model: storable(capture.model, 200),
      costUsd: capture.costUsd,
      sourceUrls: capture.sources.slice(0, MAX_ITEMS).map((u) => storable(u, MAX_URL)),
      fanOutQueries: capture.fanOutQueries.slice(0, MAX_ITEMS).map((q) => storable(q, 1_000)),
      reason: null,
    },
  };
}

/** The pages an engine retrieved, by their identity: evidence that they exist (verification weighs it). */
export function retrievedPages(sources: readonly string[]): string[] {
  return [...new Set(sources.flatMap((s) => normalizeUrl(s) ?? []))];
}

/** The links the answer shows, each page once (by its identity), in order; what is not an http(s) URL is left out. */
function citationsOf(urls: readonly string[]): CitationInput[] {
  const out: CitationInput[] = [];
  const seen = new Set<string>();
  for (const raw of urls) {
    if (raw.length > MAX_URL || out.length >= MAX_ITEMS) continue;
    const url = normalizeUrl(storable(raw, MAX_URL));
    if (url === undefined || seen.has(url)) continue;
    seen.add(url);
    const display = new URL(raw);
    display.hash = '';
    out.push({ url, rawUrl: display.href, status: 'unchecked', articleType: undefined });
  }
  return out;
}

function adsOf(ads: readonly CapturedAd[]): AdInput[] {
  return ads.slice(0, MAX_ITEMS).flatMap((ad) => {
    const advertiser = storable(ad.advertiser, 300).trim();
    if (advertiser === '') return [];
    let url: string | undefined;
    if (ad.url !== undefined && ad.url.length <= MAX_URL) {
      try {
        const parsed = new URL(ad.url);
        if (parsed.protocol === 'http:' || parsed.protocol === 'https:') {
          parsed.hash = '';
          url = parsed.href;
        }
      } catch {
        url = undefined;
      }
    }
    return [{ advertiser, url }];
  });
}

/** Text a database can hold, at most `max` characters: NUL removed, unpaired surrogates replaced. */
export function storable(value: string, max: number): string {
  return value.replaceAll('\u0000', '').slice(0, max).toWellFormed();
}
