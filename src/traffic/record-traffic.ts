import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import type { DB } from '../db/types.ts';

export interface TrafficHit {
  kind: 'crawler' | 'visit';
  source: string;
  at: Date;
  platform: string;
  /** The crawler's name; '' for a visit. */
  bot: string;
  /** The page, without its query string. */
  path: string;
  sessionId?: string | null;
}

/** Stores hits and adds them to the daily rollup, in the caller's transaction. */
export async function recordTraffic(tx: Transaction<DB>, workspaceId: string, projectId: string, hits: readonly TrafficHit[]): Promise<void> {
  if (hits.length === 0) return;
  const daily = new Map<string, { day: string; kind: 'crawler' | 'visit'; platform: string; bot: string; path: string; hits: number }>();
  const rows = hits.map((hit) => {
    const day = hit.at.toISOString().slice(0, 10);
    const key = [day, hit.kind, hit.platform, hit.bot, hit.path].join('\u0000');
    const entry = daily.get(key) ?? { day, kind: hit.kind, platform: hit.platform, bot: hit.bot, path: hit.path, hits: 0 };
    entry.hits++;
    daily.set(key, entry);
    return {
      id: randomUUID(),
      workspace_id: workspaceId,
      project_id: projectId,
      kind: hit.kind,
      source: hit.source,
      at: hit.at,
      day,
      platform: hit.platform,
      bot: hit.bot,
      path: hit.path,
      session_id: hit.sessionId ?? null,
    };
  });
  for (let i = 0; i < rows.length; i += 1_000) await tx.insertInto('traffic_hits').values(rows.slice(i, i + 1_000)).execute();
  const sorted = [...daily.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  for (let i = 0; i < sorted.length; i += 1_000) {
    await tx
      .insertInto('traffic_daily')
      .values(sorted.slice(i, i + 1_000).map((d) => ({ project_id: projectId, ...d })))
      .onConflict((oc) => oc.columns(['project_id', 'day', 'kind', 'platform', 'bot', 'path']).doUpdateSet({ hits: sql`traffic_daily.hits + excluded.hits` }))
      .execute();
  }
}

/** The path of a request target or URL, without query or fragment; '/' when there is none. */
export function pathOf(target: string | undefined): string {
  if (!target) return '/';
  let path = target;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    try {
      path = new URL(path).pathname;
    } catch {
      return '/';
    }
  }
  path = path.split(/[?#]/, 1)[0] ?? '';
  if (!path.startsWith('/')) path = `/${path}`;
  return path.length > 1_000 ? path.slice(0, 1_000) : path;
}
