import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { queueDetection } from '../changes/queue-detection.ts';
import { lockProject } from '../db/lock-project.ts';
import { markProjectChanged } from '../projects/mark-project-changed.ts';
import { movePageCitations, stateOf } from '../runs/subject-citations.ts';
import type { ClaimedUrl } from './claim-urls.ts';
import type { Decision } from './status-rules.ts';

/**
 * A check's verdict, in one transaction under the project lock, only if the worker still holds the
 * URL's claim. A new status is the URL's latest observation (status time now, the checker's); it
 * moves the URL's past citations in the rollups through the one place for it
 * (runs/subject-citations.ts), queues the days it moved for change detection, and moves the
 * project's data version (cached reads key on it). The evidence and the next check are kept either way.
 */
export async function recordVerdict(db: Kysely<DB>, url: ClaimedUrl, decision: Decision, now: Date): Promise<{ recorded: boolean; changed: boolean }> {
  return db.transaction().execute(async (tx) => {
    await lockProject(tx, url.projectId);
    const row = await tx
      .selectFrom('cited_urls')
      .select(['status', 'subject_id', 'verify_claim'])
      .where('project_id', '=', url.projectId)
      .where('id', '=', url.id)
      .forUpdate()
      .executeTakeFirst();
    if (!row || row.verify_claim !== url.claim) return { recorded: false, changed: false };
    const changed = row.status !== decision.status;
    // A conclusion (anything but "still unknown") is the checker's, and the latest observation.
    const concluded = decision.status !== 'unchecked';
    await tx
      .updateTable('cited_urls')
      .set({
        ...(concluded ? { status: decision.status, status_at: now, status_source: 'check' as const } : {}),
        ever_verified: decision.everVerified,
        verified_url: decision.verifiedUrl,
        check_failures: decision.failures,
        first_failure_at: decision.firstFailureAt,
        checked_at: now,
        check_note: decision.note.slice(0, 500),
        verify_after: decision.nextCheckAt,
        verify_claim: null,
        verify_claimed_until: null,
      })
      .where('project_id', '=', url.projectId)
      .where('id', '=', url.id)
      .execute();
    if (changed) {
      const before = stateOf(row);
      const days = await movePageCitations(tx, url.projectId, new Map([[url.id, { before, after: { subjectId: row.subject_id, status: decision.status } }]]));
      await queueDetection(tx, url.projectId, days);
      await markProjectChanged(tx, url.projectId);
    }
    return { recorded: true, changed };
  });
}
