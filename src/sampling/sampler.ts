import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { claimChecks, type ClaimedCheck } from './claim-checks.ts';
import { finishChecks, type Ending } from './finish-check.ts';
import { holdCredits, type Hold } from './hold-credits.ts';
import { performCheck, type PerformDeps } from './perform-check.ts';
import type { SamplingConfig } from './providers/providers-config.ts';

/** Ends of one project written in one transaction, at most. */
const FINISH_BATCH = 64;

export interface SamplerDeps extends PerformDeps {
  db: Kysely<DB>;
  sampling: SamplingConfig;
  onError: (error: unknown) => void;
}

export interface SamplerOptions {
  /** Only these checks (a `sample --wait`); otherwise every due check. */
  only?: readonly { projectId: string; id: string }[];
  /** How often to look for due checks when nothing woke the sampler. */
  pollMs?: number;
}

export interface Sampler {
  /** Look for due checks now (a cycle was queued, a slot freed). */
  wake(): void;
  /** Stops claiming and waits for the checks in flight to end. */
  stop(): Promise<void>;
  /** Checks in flight in this process. */
  inFlight(): number;
}

/**
 * The queue's worker, in the server (every due check) or in `sample --wait` (its cycle's): claims
 * due checks up to this process's limit and each provider's (claim-checks.ts), holds their credits
 * or skips them (hold-credits.ts, one transaction for the claimed batch), asks each provider
 * (perform-check.ts), and ends or requeues them (finish-check.ts), the ends of one project that
 * arrive together in one transaction. Everything a check is lives in its row,
 * so a worker that dies loses nothing: its claims lapse and another worker takes them.
 */
export function startSampler(deps: SamplerDeps, options: SamplerOptions = {}): Sampler {
  const { db, sampling } = deps;
  const providers = [...new Set(sampling.providers.filter((p) => p.apiKey !== undefined).map((p) => p.provider))];
  const timeoutMs = Math.max(...sampling.providers.map((p) => p.timeoutMs));
  // Longer than an attempt can take (hold, the call, the record), so only a dead worker's claim lapses.
  const leaseMs = 2 * timeoutMs + 60_000;
  const pollMs = options.pollMs ?? 1_000;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let wakeUp: (() => void) | undefined;
  let again = false;

  const wake = () => {
    again = true;
    wakeUp?.();
  };

  // Ends wait here, per project, and are recorded together (finish-check.ts): one transaction for
  // the answers that arrived while the last one was written.
  const ending = new Map<string, { ending: Ending; done: (error?: unknown) => void }[]>();
  const writing = new Set<string>();

  function finish(ending_: Ending): Promise<void> {
    const projectId = ending_.check.projectId;
    return new Promise<void>((resolve, reject) => {
      let queue = ending.get(projectId);
      if (!queue) ending.set(projectId, (queue = []));
      queue.push({ ending: ending_, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!writing.has(projectId)) void write(projectId);
    });
  }

  async function write(projectId: string): Promise<void> {
    writing.add(projectId);
    try {
      for (;;) {
        const batch = (ending.get(projectId) ?? []).splice(0, FINISH_BATCH);
        if (batch.length === 0) break;
        try {
          await finishChecks(db, projectId, batch.map((b) => b.ending), deps.now());
          for (const b of batch) b.done();
        } catch (error) {
          for (const b of batch) b.done(error);
        }
      }
    } finally {
      writing.delete(projectId);
      ending.delete(projectId);
    }
  }

  async function handle(check: ClaimedCheck, hold: Hold): Promise<void> {
    if ('lost' in hold) return;
    if ('skipped' in hold) return finish({ check, end: { kind: 'skipped', reason: `${hold.skipped}: ${hold.message}` } });
    return finish({ check, end: await performCheck(deps, check) });
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      again = false;
      const slots = sampling.instanceConcurrency - inFlight.size;
      let claimed: ClaimedCheck[] = [];
      if (slots > 0) {
        try {
          claimed = await claimChecks(db, { slots, providers, perProvider: sampling.providerConcurrency, leaseMs, now: deps.now(), only: options.only });
        } catch (error) {
          deps.onError(error);
        }
      }
      let holds: Hold[] = [];
      try {
        holds = await holdCredits(db, claimed, deps.now());
      } catch (error) {
        deps.onError(error);
        claimed = []; // their claims lapse and they are claimed again
      }
      for (const [i, check] of claimed.entries()) {
        const run: Promise<void> = handle(check, holds[i]!)
          .catch(deps.onError)
          .finally(() => {
            inFlight.delete(run);
            wake();
          });
        inFlight.add(run);
      }
      if (stopped || (claimed.length > 0 && claimed.length === slots) || again) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, pollMs);
        wakeUp = done;
        function done() {
          clearTimeout(timer);
          wakeUp = undefined;
          resolve();
        }
      });
    }
  }

  const running = loop();
  return {
    wake,
    inFlight: () => inFlight.size,
    async stop() {
      stopped = true;
      wakeUp?.();
      await running;
      await Promise.all([...inFlight]);
    },
  };
}
