import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { DB } from '../db/types.ts';

/** What a webhook receives for each new change event (docs/webhooks.md). */
export interface ChangePayload {
  type: 'change_event';
  projectId: string;
  event: Record<string, unknown> & { id: string };
}

/** Queues each new event for every webhook of the workspace, in the caller's transaction. */
export async function enqueueDeliveries(tx: Transaction<DB>, workspaceId: string, payloads: readonly ChangePayload[], now: Date): Promise<void> {
  if (payloads.length === 0) return;
  const hooks = await tx.selectFrom('webhooks').select('id').where('workspace_id', '=', workspaceId).execute();
  if (hooks.length === 0) return;
  const rows = hooks.flatMap((hook) =>
    payloads.map((payload) => ({
      id: randomUUID(),
      workspace_id: workspaceId,
      webhook_id: hook.id,
      event_id: payload.event.id,
      payload: JSON.stringify(payload),
      status: 'pending' as const,
      next_attempt_at: now,
      last_error: null,
      delivered_at: null,
    })),
  );
  for (let i = 0; i < rows.length; i += 500) {
    await tx
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 500))
      .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
      .execute();
  }
}
