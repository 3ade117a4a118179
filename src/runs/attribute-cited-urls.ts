import type { Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { citedSubject } from './import-runs.ts';
import { shiftSubjectCitations } from './shift-subject-citations.ts';
import type { Subject } from './subjects.ts';

/**
 * After a competitor is added: the project's cited URLs under its domain that it now owns (it is
 * more specific than their owner, or they had none) pass to it, with their past citations, so a
 * competitor added late is credited with what engines cited before.
 */
export async function attributeCitedUrls(tx: Transaction<DB>, projectId: string, subjects: readonly Subject[], domain: string): Promise<void> {
  const candidates = await tx
    .selectFrom('cited_urls')
    .select(['id', 'host', 'status', 'subject_id'])
    .where('project_id', '=', projectId)
    .where((eb) => eb.or([eb('host', '=', domain), eb('host', 'like', `%.${domain}`)]))
    .execute();
  const moves = new Map<string, { subject: Subject; from: string | null; counted: boolean; ids: string[] }>();
  for (const url of candidates) {
    const owner = citedSubject(subjects, url.host);
    if (!owner || owner.id === url.subject_id) continue;
    const key = `${url.subject_id}>${owner.id}>${url.status !== 'hallucinated'}`;
    const move = moves.get(key) ?? { subject: owner, from: url.subject_id, counted: url.status !== 'hallucinated', ids: [] };
    moves.set(key, move);
    move.ids.push(url.id);
  }
  for (const move of moves.values()) {
    await tx
      .updateTable('cited_urls')
      .set({ subject_type: move.subject.type, subject_id: move.subject.id })
      .where('id', 'in', move.ids)
      .execute();
    if (!move.counted) continue;
    if (move.from !== null) await shiftSubjectCitations(tx, projectId, move.ids, move.from, -1);
    await shiftSubjectCitations(tx, projectId, move.ids, move.subject.id, 1);
  }
}
