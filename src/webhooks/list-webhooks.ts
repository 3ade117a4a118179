import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

export interface WebhookSummary {
  id: string;
  workspaceId: string;
  url: string;
  createdAt: string;
  /** Deliveries by state (finished ones are kept 7 days when delivered, 30 when given up). */
  deliveries: { pending: number; delivered: number; failed: number };
  lastError: string | null;
}

/** Webhooks, oldest first: all, or one workspace's. The signing secret is never shown again. */
export async function listWebhooks(db: Kysely<DB>, workspaceId?: string): Promise<WebhookSummary[]> {
  const rows = await db
    .selectFrom('webhooks as w')
    .leftJoin('webhook_deliveries as d', 'd.webhook_id', 'w.id')
    .select([
      'w.id',
      'w.workspace_id',
      'w.url',
      'w.created_at',
      sql<number>`count(d.id) filter (where d.status = 'pending')`.as('pending'),
      sql<number>`count(d.id) filter (where d.status = 'delivered')`.as('delivered'),
      sql<number>`count(d.id) filter (where d.status = 'failed')`.as('failed'),
      sql<string | null>`(array_agg(d.last_error order by d.next_attempt_at desc) filter (where d.last_error is not null))[1]`.as('last_error'),
    ])
    .$if(workspaceId !== undefined, (q) => q.where('w.workspace_id', '=', workspaceId!))
    .groupBy(['w.id', 'w.workspace_id', 'w.url', 'w.created_at'])
    .orderBy('w.created_at')
    .orderBy('w.id')
    .execute();
  return rows.map((w) => ({
    id: w.id,
    workspaceId: w.workspace_id,
    url: w.url,
    createdAt: w.created_at.toISOString(),
    deliveries: { pending: Number(w.pending), delivered: Number(w.delivered), failed: Number(w.failed) },
    lastError: w.last_error,
  }));
}
