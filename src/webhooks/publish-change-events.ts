import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { changeEventRowToChangeEvent, selectChangeEventRows } from '../changes/change-event.ts';

/** What a webhook receives for each new change event (docs/webhooks.md). */
export interface ChangePayload {
  type: 'change_event';
  projectId: string;
  event: ReturnType<typeof changeEventRowToChangeEvent>;
}

/**
 * The webhook fan-out: takes new change events from the table (those not yet published), queues a
 * delivery of each to every webhook of its workspace, and marks them published, in one
 * transaction. Detection only writes events; this reads them, so a crash between the two loses
 * nothing, and instances running it at once take different events (SKIP LOCKED).
 */
export async function publishChangeEvents(db: Kysely<DB>, now: Date, limit = 200): Promise<number> {
  return db.transaction().execute(async (tx) => {
    const claimed = await tx
      .selectFrom('change_events')
      .select('id')
      .where('published_at', 'is', null)
      .orderBy('detected_at')
      .orderBy('id')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (claimed.length === 0) return 0;
    const ids = claimed.map((c) => c.id);
    const rows = await selectChangeEventRows(tx).where('c.id', 'in', ids).execute();
    const workspaces = [...new Set(rows.map((r) => r.workspace_id))];
    // Key-share locked: a removal (remove-webhook.ts) waits for this fan-out and then deletes what
    // it queued; one already under way is waited for here and its webhook is not returned.
    const hooks = await tx.selectFrom('webhooks').select(['id', 'workspace_id']).where('workspace_id', 'in', workspaces).forKeyShare().execute();
    const deliveries = rows.flatMap((row) => {
      const payload: ChangePayload = { type: 'change_event', projectId: row.project_id, event: changeEventRowToChangeEvent(row) };
      return hooks
        .filter((h) => h.workspace_id === row.workspace_id)
        .map((hook) => ({
          id: randomUUID(),
          workspace_id: row.workspace_id,
          webhook_id: hook.id,
          event_id: row.id,
          payload: JSON.stringify(payload),
          status: 'pending' as const,
          next_attempt_at: now,
          claimed_until: null,
          last_error: null,
          delivered_at: null,
        }));
    });
    for (let i = 0; i < deliveries.length; i += 500) {
      await tx
        .insertInto('webhook_deliveries')
        .values(deliveries.slice(i, i + 500))
        .onConflict((oc) => oc.columns(['workspace_id', 'webhook_id', 'event_id']).doNothing())
        .execute();
    }
    await tx.updateTable('change_events').set({ published_at: now }).where('id', 'in', ids).execute();
    return ids.length;
  });
}
