import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { drainPendingDetections } from '../changes/drain-pending-detections.ts';
import type { Outbound } from '../outbound/outbound.ts';
import { resumeBackfills } from '../runs/backfill-subject.ts';
import { pruneTraffic } from '../traffic/prune-traffic.ts';
import { deliverDue } from '../webhooks/deliver-webhooks.ts';
import { pruneWebhookDeliveries } from '../webhooks/prune-webhook-deliveries.ts';
import { publishChangeEvents } from '../webhooks/publish-change-events.ts';
import { startSampler, type SamplerDeps } from '../sampling/sampler.ts';
import { scheduleDue } from '../sampling/schedule-due.ts';
import { configuredEngines } from '../sampling/providers/providers-config.ts';
import { verifyDue, type VerifierDeps } from '../verification/verifier.ts';
import { every } from './every.ts';

/**
 * The server's background work. Every piece keeps its state in the database, so any number of
 * instances may run it at once and a restart resumes it: webhook fan-out and delivery, change
 * detection left pending, competitor backfills left unfinished, retention; and, with `sampling`,
 * the sampling scheduler (today's cycles, every minute) and the queue's worker; with `verification`,
 * the checks of cited URLs that are due.
 */
export function startWorkers(
  db: Kysely<DB>,
  outbound: Outbound,
  onError: (error: unknown) => void,
  sampling?: Omit<SamplerDeps, 'db' | 'onError'>,
  verification?: Omit<VerifierDeps, 'db' | 'onError'>,
): () => Promise<void> {
  const sampler = sampling ? startSampler({ ...sampling, db, onError }) : undefined;
  const schedule = async () => {
    if (!sampling) return;
    if ((await scheduleDue(db, configuredEngines(sampling.sampling.providers), sampling.now())) > 0) sampler?.wake();
  };
  if (sampling) void schedule().catch(onError);
  const stops = [
    ...(sampling ? [every(60_000, schedule, onError), async () => sampler?.stop()] : []),
    // Cited URLs due for a check, a round at a time until none is left.
    ...(verification
      ? [
          every(5_000, async () => {
            const deps = { ...verification, db, onError };
            while ((await verifyDue(deps, { limit: 4 * deps.concurrency })).length > 0);
          }, onError),
        ]
      : []),
    every(2_000, async () => {
      await publishChangeEvents(db, new Date());
      await deliverDue(db, outbound, new Date());
    }, onError),
    every(5_000, () => drainPendingDetections(db, new Date()), onError),
    every(30_000, () => resumeBackfills(db), onError),
    every(3_600_000, async () => {
      await pruneWebhookDeliveries(db, new Date());
      await pruneTraffic(db, new Date());
    }, onError),
  ];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
