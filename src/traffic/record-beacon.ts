import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { hostIsUnder } from '../runs/classify-url.ts';
import { classifyReferral } from './ai-referrals.ts';
import { pathOf } from './path-of.ts';
import { recordTraffic } from './record-traffic.ts';

export interface BeaconHit {
  projectId: string;
  url: string;
  referrer?: string | null | undefined;
  /** Accepted (spec 4.10) and not stored: the report counts views, not sessions. */
  sessionId?: string | null | undefined;
}

/** Why a beacon hit is not stored. The answer is the same `tracked: false` for each. */
export type BeaconDrop = 'no_origin' | 'unknown_brand' | 'origin_mismatch' | 'not_ai';

/**
 * A page view from the snippet: stored only when it comes from the brand's own site (the `Origin`
 * host is the brand domain or a subdomain) and was referred by an AI assistant. An unknown brand
 * and a foreign origin are dropped alike, so brand ids cannot be enumerated.
 */
export async function recordBeacon(
  db: Kysely<DB>,
  hit: BeaconHit,
  origin: string | undefined,
  now: Date,
): Promise<{ tracked: true } | { tracked: false; reason: BeaconDrop }> {
  const originHost = hostOf(origin);
  if (!originHost) return { tracked: false, reason: 'no_origin' };
  const project = await db.selectFrom('projects').select(['id', 'domain']).where('id', '=', hit.projectId).executeTakeFirst();
  if (!project) return { tracked: false, reason: 'unknown_brand' };
  if (!hostIsUnder(originHost, project.domain)) return { tracked: false, reason: 'origin_mismatch' };
  const referral = classifyReferral(hit.referrer ?? null, hit.url);
  if (!referral) return { tracked: false, reason: 'not_ai' };
  await db.transaction().execute((tx) =>
    recordTraffic(tx, project.id, [{ kind: 'visit', source: 'beacon', at: now, platform: referral.platform, bot: '', path: pathOf(hit.url) }]),
  );
  return { tracked: true };
}

function hostOf(origin: string | undefined): string | undefined {
  if (!origin || origin === 'null') return undefined;
  try {
    return new URL(origin).hostname.toLowerCase().replace(/\.$/, '') || undefined;
  } catch {
    return undefined;
  }
}
