import type { Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { NotFoundError } from '../http/errors.ts';
import { verifyDue, type VerifierDeps } from './verifier.ts';

export interface VerifyResult {
  checked: number;
  verified: number;
  stale: number;
  broken: number;
  hallucinated: number;
  unchecked: number;
}

/**
 * `sightline verify --project ID`: what is due now. With `wait`, this process checks every URL of
 * the project that is due (in rounds, until none is left: a URL checked now is next due later) and
 * counts the statuses it left them in; without, it returns at once with nothing checked yet, and a
 * server's verifier works the queue.
 */
export async function verifyNow(deps: VerifierDeps, projectId: string, wait: boolean): Promise<VerifyResult> {
  const project = await (deps.db as Kysely<DB>).selectFrom('projects').select('id').where('id', '=', projectId).executeTakeFirst();
  if (!project) throw new NotFoundError(`no project ${projectId}`);
  if (!wait) return { checked: 0, verified: 0, stale: 0, broken: 0, hallucinated: 0, unchecked: 0 };
  return (await verifyRounds(deps, projectId, Number.POSITIVE_INFINITY)).result;
}

/**
 * The project's due URLs checked in rounds until none is left (`complete`), or until `deadline`
 * (ms since the epoch) passes: no round starts after it, so a request that must answer in time
 * says what is still due by `complete: false`. Without a deadline a round is 100 URLs; with one,
 * a round is as many as are checked at once, so the request overruns its deadline by one check at
 * most. A round that claimed fewer than it asked for (its verdicts and its failed checks counted)
 * found nothing more due.
 */
export async function verifyRounds(deps: VerifierDeps, projectId: string, deadline: number): Promise<{ result: VerifyResult; complete: boolean }> {
  const result: VerifyResult = { checked: 0, verified: 0, stale: 0, broken: 0, hallucinated: 0, unchecked: 0 };
  const size = Number.isFinite(deadline) ? Math.max(1, deps.concurrency) : ROUND;
  let failed = 0;
  const counting: VerifierDeps = { ...deps, onError: (error) => { failed++; deps.onError(error); } };
  while (Date.now() < deadline) {
    failed = 0;
    const round = await verifyDue(counting, { limit: size, projectId });
    for (const { status } of round) {
      result.checked++;
      result[status as keyof Omit<VerifyResult, 'checked'>]++;
    }
    if (round.length + failed < size) return { result, complete: true };
  }
  return { result, complete: false };
}

const ROUND = 100;
