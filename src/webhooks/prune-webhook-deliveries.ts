import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

/** Delivered deliveries are kept this long (to answer "was it sent?"), then deleted. */
export const KEEP_DELIVERED_DAYS = 7;
/** Deliveries given up on are kept longer, for whoever investigates the endpoint. */
export const KEEP_FAILED_DAYS = 30;

/** Retention of webhook_deliveries: pending ones are never deleted; finished ones after their window. */
export async function pruneWebhookDeliveries(db: Kysely<DB>, now: Date): Promise<{ deleted: number }> {
  const day = 86_400_000;
  const delivered = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '=', 'delivered')
    .where('delivered_at', '<', new Date(now.getTime() - KEEP_DELIVERED_DAYS * day))
    .executeTakeFirst();
  const failed = await db
    .deleteFrom('webhook_deliveries')
    .where('status', '=', 'failed')
    .where('next_attempt_at', '<', new Date(now.getTime() - KEEP_FAILED_DAYS * day))
    .executeTakeFirst();
  return { deleted: Number(delivered.numDeletedRows) + Number(failed.numDeletedRows) };
}
