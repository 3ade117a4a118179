import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { KIND_LABELS, type ChangeKind } from './evaluate-changes.ts';

/** The public ChangeEvent (public-interface 2.10): what `/changes` returns and what webhooks carry. */
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

/** Stored events with the names their public form shows (subject, engine). */
export function selectChangeEventRows(db: Kysely<DB> | Transaction<DB>) {
  return db
    .selectFrom('change_events as c')
    .leftJoin('engines as e', 'e.id', 'c.engine_id')
    .leftJoin('competitors as k', 'k.id', 'c.subject_id')
    .leftJoin('projects as p', 'p.id', 'c.subject_id')
    .select([
      'c.id',
      'c.project_id',
      'c.workspace_id',
      'c.day',
      'c.kind',
      'c.subject_type',
      'c.summary',
      'c.detail',
      'c.detected_at',
      'e.label as engine_label',
      'k.name as competitor_name',
      'p.name as brand_name',
    ]);
}

export type ChangeEventRow = Awaited<ReturnType<ReturnType<typeof selectChangeEventRows>['execute']>>[number];

/** The one mapper from a stored event to its public form, for every door that emits it. */
export function changeEventRowToChangeEvent(row: ChangeEventRow): ChangeEvent {
  return {
    id: row.id,
    day: row.day,
    kind: row.kind as ChangeKind,
    kindLabel: KIND_LABELS[row.kind as ChangeKind] ?? row.kind,
    subjectType: row.subject_type,
    subjectName: (row.subject_type === 'brand' ? row.brand_name : row.competitor_name) ?? '',
    engineLabel: row.engine_label ?? null,
    summary: row.summary,
    detail: typeof row.detail === 'string' ? (JSON.parse(row.detail) as Record<string, unknown>) : row.detail,
    detectedAt: row.detected_at.toISOString(),
  };
}
