import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';

/**
 * Removes a webhook of the workspace and its deliveries, sent or not, in one transaction: nothing
 * more goes to its address (a delivery an instance is sending right now is its last).
 */
export async function removeWebhook(db: Kysely<DB>, workspaceId: string, id: string): Promise<{ id: string }> {
  return db.transaction().execute(async (tx) => {
    // Locked first. A fan-out (publish-change-events.ts) holds its webhooks key-share locked while
    // it queues deliveries: this waits for it, then deletes what it queued; a fan-out that starts
    // now waits for this and no longer finds the webhook. Neither fails on the other.
    const hook = await tx.selectFrom('webhooks').select('id').where('workspace_id', '=', workspaceId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!hook) throw new NotFoundError(`no webhook ${id}`);
    await tx.deleteFrom('webhook_deliveries').where('workspace_id', '=', workspaceId).where('webhook_id', '=', id).execute();
    await tx.deleteFrom('webhooks').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
    return { id };
  });
}
