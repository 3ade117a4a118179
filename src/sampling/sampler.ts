import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { claimChecks, type ClaimedCheck } from './claim-checks.ts';
import { finishCheck } from './finish-check.ts';
import { holdCredits } from './hold-credits.ts';
import { performCheck, type PerformDeps } from './perform-check.ts';
import type { SamplingConfig } from './providers/providers-config.ts';

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
 * due checks up to this process's limit and each provider's (claim-checks.ts), and runs each
 * through its steps: hold its credits or skip it (hold-credits.ts), ask the provider
 * (perform-check.ts), end or requeue it (finish-check.ts). Everything a check is lives in its row,
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

  async function handle(check: ClaimedCheck): Promise<void> {
    const hold = await holdCredits(db, check, deps.now());
    if ('lost' in hold) return;
    if ('skipped' in hold) {
      await finishCheck(db, check, { kind: 'skipped', reason: `${hold.skipped}: ${hold.message}` }, deps.now());
      return;
    }
    const end = await performCheck(deps, check);
    await finishCheck(db, check, end, deps.now());
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
      for (const check of claimed) {
        const run: Promise<void> = handle(check)
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
