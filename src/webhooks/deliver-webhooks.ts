import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { OutboundError, type Outbound } from '../outbound/outbound.ts';
import { SIGNATURE_HEADER, signPayload } from './sign-payload.ts';

/** Attempts before a delivery is given up (about two days of backoff in all). */
export const MAX_ATTEMPTS = 12;
/** The longest a send may take. */
export const SEND_TIMEOUT_MS = 10_000;
/** How long a claimed delivery is its instance's: longer than the worst send, which starts at once. */
export const CLAIM_MS = 6 * SEND_TIMEOUT_MS;
/** Sends in flight to one endpoint at a time: one dead or slow endpoint holds back nobody else. */
export const PER_ENDPOINT = 4;

/** Backoff after the n-th failed attempt: 30 s, 1 min, 2 min, ... at most 6 h. */
export function backoffMs(attempt: number): number {
  return Math.min(30_000 * 2 ** (attempt - 1), 6 * 3_600_000);
}

/**
 * Sends the deliveries that are due. Each is first claimed (`claimed_until`, committed: an
 * UPDATE that re-checks the claim, so two instances never claim one delivery), at most
 * PER_ENDPOINT in flight per endpoint across instances; the claimed ones are sent in parallel at
 * once, each within SEND_TIMEOUT_MS, well inside the claim; then each is marked delivered,
 * rescheduled with backoff, or given up. A crash while sending lets the claim lapse and the
 * delivery is sent again: at least once; receivers dedupe on the `sightline-event-id` header.
 */
export async function deliverDue(db: Kysely<DB>, outbound: Outbound, now: Date, limit = 50): Promise<{ delivered: number; failed: number }> {
  const claimed = await sql<{ id: string; event_id: string; payload: string; attempts: number; url: string; secret: string }>`
    with due as (
      select d.id, row_number() over (partition by d.webhook_id order by d.next_attempt_at, d.id) as place,
        coalesce(f.in_flight, 0) as in_flight, d.next_attempt_at
      from webhook_deliveries d
      left join (
        select webhook_id, count(*) as in_flight from webhook_deliveries
        where status = 'pending' and claimed_until > ${now} group by webhook_id
      ) f on f.webhook_id = d.webhook_id
      where d.status = 'pending' and d.next_attempt_at <= ${now} and (d.claimed_until is null or d.claimed_until <= ${now})
    ),
    chosen as (
      select id from due where place <= ${PER_ENDPOINT} - in_flight order by next_attempt_at, id limit ${limit}
    ),
    claimed as (
      update webhook_deliveries d set claimed_until = ${new Date(now.getTime() + CLAIM_MS)}, attempts = d.attempts + 1
      from chosen c
      where d.id = c.id and d.status = 'pending' and (d.claimed_until is null or d.claimed_until <= ${now})
      returning d.id, d.workspace_id, d.event_id, d.payload, d.attempts, d.webhook_id
    )
    select c.id, c.event_id, c.payload, c.attempts, w.url, w.secret from claimed c join webhooks w on w.workspace_id = c.workspace_id and w.id = c.webhook_id`.execute(db);

  const outcomes = await Promise.all(claimed.rows.map((d) => send(outbound, d, now)));
  let delivered = 0;
  let failed = 0;
  for (const [i, error] of outcomes.entries()) {
    const d = claimed.rows[i]!;
    if (error === undefined) {
      delivered++;
      await db.updateTable('webhook_deliveries').set({ status: 'delivered', delivered_at: now, claimed_until: null, last_error: null }).where('id', '=', d.id).execute();
    } else {
      failed++;
      const giveUp = d.attempts >= MAX_ATTEMPTS;
      await db
        .updateTable('webhook_deliveries')
        .set({
          status: giveUp ? 'failed' : 'pending',
          next_attempt_at: new Date(now.getTime() + backoffMs(d.attempts)),
          claimed_until: null,
          last_error: error.slice(0, 500),
        })
        .where('id', '=', d.id)
        .execute();
    }
  }
  return { delivered, failed };
}

/** One POST; undefined when the receiver accepted it (2xx), else what went wrong. */
async function send(outbound: Outbound, d: { event_id: string; payload: string; secret: string; url: string }, now: Date): Promise<string | undefined> {
  try {
    const response = await outbound.request(d.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Sightline-Webhooks/1',
        'sightline-event-id': d.event_id,
        [SIGNATURE_HEADER]: signPayload(d.secret, Math.floor(now.getTime() / 1000), d.payload),
      },
      body: d.payload,
      timeoutMs: SEND_TIMEOUT_MS,
      maxBytes: 4_096,
    });
    return response.status >= 200 && response.status < 300 ? undefined : `HTTP ${response.status}`;
  } catch (error) {
    return error instanceof OutboundError ? `${error.failure}: ${error.message}` : String(error);
  }
}
