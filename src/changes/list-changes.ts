import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { KIND_LABELS, type ChangeKind } from './evaluate-changes.ts';

export const MAX_EVENTS = 50;

export interface ChangeEvent {
  id: string;
  day: string;
  kind: ChangeKind;
  kindLabel: string;
  subjectType: 'brand' | 'competitor';
  subjectName: string;
  engineLabel: string | null;
  summary: string;
  detail: Record<string, unknown>;
  detectedAt: string;
}

/** The 50 most recent events of the range, newest day first (then latest detected, then kind). */
export async function listChanges(db: Kysely<DB>, projectId: string, from: string, to: string): Promise<ChangeEvent[]> {
  const rows = await db
    .selectFrom('change_events as c')
    .leftJoin('engines as e', 'e.id', 'c.engine_id')
    .leftJoin('competitors as k', 'k.id', 'c.subject_id')
    .leftJoin('projects as p', 'p.id', 'c.subject_id')
    .select(['c.id', 'c.day', 'c.kind', 'c.subject_type', 'c.summary', 'c.detail', 'c.detected_at', 'e.label as engine_label', 'k.name as competitor_name', 'p.name as brand_name'])
    .where('c.project_id', '=', projectId)
    .where('c.day', '>=', from)
    .where('c.day', '<=', to)
    .orderBy('c.day', 'desc')
    .orderBy('c.detected_at', 'desc')
    .orderBy('c.kind')
    .orderBy('c.id')
    .limit(MAX_EVENTS)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    day: r.day,
    kind: r.kind as ChangeKind,
    kindLabel: KIND_LABELS[r.kind as ChangeKind] ?? r.kind,
    subjectType: r.subject_type,
    subjectName: (r.subject_type === 'brand' ? r.brand_name : r.competitor_name) ?? '',
    engineLabel: r.engine_label ?? null,
    summary: r.summary,
    detail: typeof r.detail === 'string' ? (JSON.parse(r.detail) as Record<string, unknown>) : r.detail,
    detectedAt: r.detected_at.toISOString(),
  }));
}
