import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { SIGNATURE_HEADER, signPayload } from './sign-payload.ts';

/** Attempts before a delivery is given up (about two days of backoff in all). */
export const MAX_ATTEMPTS = 12;
/** How long a claimed delivery is reserved for the instance sending it. */
const LEASE_MS = 60_000;
const TIMEOUT_MS = 10_000;

/** Backoff after the n-th failed attempt: 30 s, 1 min, 2 min, ... at most 6 h. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000 * 2 ** (attempt - 1), 6 * 3_600_000);
}

/**
 * Sends the deliveries that are due. Each is first claimed (a lease, committed), then POSTed
 * outside any transaction, then marked delivered, or rescheduled with backoff, or given up. Several
 * instances may run this at once: a claimed delivery is skipped by the others (SKIP LOCKED and the
 * lease). A crash while sending leaves the lease to expire and the delivery is sent again: at least
 * once; receivers dedupe on the `sightline-event-id` header.
 */
export async function deliverDue(db: Kysely<DB>, now: Date, send: typeof fetch = fetch, limit = 20): Promise<{ delivered: number; failed: number }> {
  const claimed = await db.transaction().execute(async (tx) => {
    const due = await tx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
      .select(['d.id', 'd.event_id', 'd.payload', 'd.attempts', 'w.url', 'w.secret'])
      .where('d.status', '=', 'pending')
      .where('d.next_attempt_at', '<=', now)
      .orderBy('d.next_attempt_at')
      .limit(limit)
      .forUpdate('d')
      .skipLocked()
      .execute();
    if (due.length > 0) {
      await tx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: new Date(now.getTime() + LEASE_MS), attempts: sql`attempts + 1` })
        .where('id', 'in', due.map((d) => d.id))
        .execute();
    }
    return due;
  });
  let delivered = 0;
  let failed = 0;
  for (const d of claimed) {
    const attempt = d.attempts + 1;
    const timestamp = Math.floor(now.getTime() / 1000);
    let error: string | undefined;
    try {
      const response = await send(d.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Sightline-Webhooks/1',
          'sightline-event-id': d.event_id,
          [SIGNATURE_HEADER]: signPayload(d.secret, timestamp, d.payload),
        },
        body: d.payload,
        signal: AbortSignal.timeout(TIMEOUT_MS),
        redirect: 'manual',
      });
      if (response.status < 200 || response.status >= 300) error = `HTTP ${response.status}`;
      await response.body?.cancel().catch(() => undefined);
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    if (error === undefined) {
      delivered++;
      await db.updateTable('webhook_deliveries').set({ status: 'delivered', delivered_at: now, last_error: null }).where('id', '=', d.id).execute();
    } else {
      failed++;
      const giveUp = attempt >= MAX_ATTEMPTS;
      await db
        .updateTable('webhook_deliveries')
        .set({ status: giveUp ? 'failed' : 'pending', next_attempt_at: new Date(now.getTime() + backoffMs(attempt)), last_error: error.slice(0, 500) })
        .where('id', '=', d.id)
        .execute();
    }
  }
  return { delivered, failed };
}

/** Runs deliverDue every `intervalMs` until stopped; one pass at a time. */
export function startWebhookWorker(db: Kysely<DB>, options: { intervalMs?: number; onError?: (error: unknown) => void } = {}): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = deliverDue(db, new Date())
      .catch((error) => options.onError?.(error))
      .finally(() => {
        running = undefined;
      });
  }, options.intervalMs ?? 5_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
