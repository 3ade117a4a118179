import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB, ProjectRow } from '../db/types.ts';
import { utcDay } from '../usage/calendar.ts';
import { classifyReferral } from './ai-referrals.ts';
import { ingestWindow } from './ingest-window.ts';
import { matchCrawler } from './match-crawler.ts';
import { parseLogLine } from './parse-log-line.ts';
import { pathOf } from './path-of.ts';
import { recordTraffic, type TrafficHit } from './record-traffic.ts';

/** Longest line read (public-interface section 8); a longer one is dropped, the rest processed. */
export const MAX_LINE_LENGTH = 16_384;

export interface IngestCounts {
  linesRead: number;
  crawlerHits: number;
  aiVisits: number;
  dropped: number;
  /** Lines seen before for this project (re-uploads, overlapping uploads). */
  duplicates: number;
}

/**
 * Why a line does not count. Each reason has its own test. `too_old`: dated before the ingest
 * window (INGEST_WINDOW_DAYS, which also covers absurd years such as 0000); `in_future`: dated
 * more than FUTURE_TOLERANCE_MS after now (year 99999 included).
 */
export type DropReason = 'too_long' | 'unparsed' | 'too_old' | 'in_future' | 'not_ai';

export type Classified = { hit: TrafficHit; line: string } | { drop: DropReason };

/**
 * One log line through the pipeline: size, grammar, time (the line's own, else now) within the
 * ingest window, then an AI crawler by user agent, else an AI-referred visit by referrer or landing
 * URL, else dropped. Pure: no storage.
 */
export function classifyLine(line: string, source: string, project: Pick<ProjectRow, 'domain'>, now: Date): Classified {
  if (line.length > MAX_LINE_LENGTH) return { drop: 'too_long' };
  const entry = parseLogLine(line);
  if (!entry) return { drop: 'unparsed' };
  const at = entry.at && !Number.isNaN(entry.at.getTime()) ? entry.at : now;
  const window = ingestWindow(now);
  if (at > window.latest) return { drop: 'in_future' };
  if (utcDay(at) < window.firstDay) return { drop: 'too_old' };
  const path = pathOf(entry.target);
  const crawler = entry.userAgent ? matchCrawler(entry.userAgent) : undefined;
  if (crawler) {
    return { line, hit: { kind: 'crawler', source, at, platform: crawler.platform, bot: crawler.name, path } };
  }
  const landing = entry.target ? landingUrl(entry.host ?? project.domain, entry.target) : null;
  const referral = classifyReferral(entry.referrer || null, landing);
  if (referral) return { line, hit: { kind: 'visit', source, at, platform: referral.platform, bot: '', path } };
  return { drop: 'not_ai' };
}

function landingUrl(host: string, target: string): string | null {
  if (/^https?:\/\//i.test(target)) return target;
  try {
    return new URL(target.startsWith('/') ? target : `/${target}`, `https://${host.replace(/:\d+$/, '')}`).href;
  } catch {
    return null;
  }
}

/**
 * A whole upload, all or nothing: the hits and the hashes of their lines commit together, and a
 * line whose hash the project has already seen counts as a duplicate (the database's unique key
 * decides, so concurrent overlapping uploads never double-count). Each hash is stored with its
 * line's day, for pruning (prune-traffic.ts).
 */
export async function ingestLog(db: Kysely<DB>, project: ProjectRow, body: string, source: string, now: Date): Promise<IngestCounts> {
  const counts: IngestCounts = { linesRead: 0, crawlerHits: 0, aiVisits: 0, dropped: 0, duplicates: 0 };
  const accepted = new Map<string, TrafficHit>();
  for (const raw of body.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    counts.linesRead++;
    const result = classifyLine(line, source, project, now);
    if ('drop' in result) {
      counts.dropped++;
      continue;
    }
    const hash = createHash('sha256').update(result.line, 'utf8').digest('hex');
    if (accepted.has(hash)) counts.duplicates++;
    else accepted.set(hash, result.hit);
  }
  if (accepted.size === 0) return counts;
  await db.transaction().execute(async (tx) => {
    const fresh = new Set<string>();
    const hashes = [...accepted.keys()].sort();
    for (let i = 0; i < hashes.length; i += 1_000) {
      const rows = await tx
        .insertInto('ingest_lines')
        .values(hashes.slice(i, i + 1_000).map((line_hash) => ({ project_id: project.id, line_hash, day: utcDay(accepted.get(line_hash)!.at) })))
        .onConflict((oc) => oc.columns(['project_id', 'line_hash']).doNothing())
        .returning('line_hash')
        .execute();
      for (const row of rows) fresh.add(row.line_hash);
    }
    const hits: TrafficHit[] = [];
    for (const [hash, hit] of accepted) {
      if (!fresh.has(hash)) {
        counts.duplicates++;
        continue;
      }
      hits.push(hit);
      if (hit.kind === 'crawler') counts.crawlerHits++;
      else counts.aiVisits++;
    }
    await recordTraffic(tx, project.id, hits);
  });
  return counts;
}
