import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { plainArray, textArray } from '../db/array-literal.ts';
import type { EngineKey } from '../runs/vocabulary.ts';
import type { CheckIdentity } from './plan-cycle.ts';

/** A check a worker owns until `claimedUntil`: only the holder of `claim` may record it. */
export interface ClaimedCheck extends CheckIdentity {
  id: string;
  attempts: number;
  claim: string;
  /** The prompt's text: the question asked. */
  prompt: string;
}

export interface ClaimOptions {
  /** At most this many (the worker's free slots). */
  slots: number;
  /** Providers this worker can call (configured). */
  providers: readonly string[];
  /** Checks in flight per provider, across every worker. */
  perProvider: number;
  /** How long a claim holds: longer than an attempt can take, so only a dead worker's lapses. */
  leaseMs: number;
  now: Date;
  /** Only these checks (a `sample --wait` of one cycle). */
  only?: readonly { projectId: string; id: string }[] | undefined;
}

/**
 * Claims due checks: queued ones whose time has come, and running ones whose claim lapsed (their
 * worker died), oldest due first, no more per provider than `perProvider` minus those in flight
 * anywhere. Claims are made one worker at a time (a transaction-level advisory lock), so two
 * workers never exceed a provider's limit together or claim the same check.
 */
export async function claimChecks(db: Kysely<DB>, options: ClaimOptions): Promise<ClaimedCheck[]> {
  if (options.slots <= 0 || options.providers.length === 0 || (options.only && options.only.length === 0)) return [];
  const claim = randomUUID();
  const until = new Date(options.now.getTime() + options.leaseMs);
  const only = options.only
    ? sql`and (c.project_id, c.id) in (select * from unnest(${plainArray(options.only.map((o) => o.projectId))}::uuid[], ${plainArray(options.only.map((o) => o.id))}::uuid[]))`
    : sql``;
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended('sightline:claim-checks', 0))`.execute(tx);
    const rows = await sql<{
      project_id: string;
      id: string;
      workspace_id: string;
      prompt_id: string;
      engine: EngineKey;
      provider: string;
      location: string;
      day: string;
      sample: number;
      attempts: number;
      prompt: string;
    }>`
      with busy as (
        select provider, count(*)::int as n from checks
        where state = 'running' and claimed_until > ${options.now} and provider = any(${textArray(options.providers)}::text[])
        group by provider
      ), due as (
        select c.project_id, c.id, c.provider, c.run_after,
          row_number() over (partition by c.provider order by c.run_after, c.id) as rank
        from checks c
        where ((c.state = 'queued' and c.run_after <= ${options.now}) or (c.state = 'running' and c.claimed_until <= ${options.now}))
          and c.provider = any(${textArray(options.providers)}::text[]) ${only}
        order by c.run_after limit ${options.slots * 8 + 64}
      ), picked as (
        select d.project_id, d.id from due d left join busy b on b.provider = d.provider
        where d.rank <= ${options.perProvider} - coalesce(b.n, 0)
        order by d.run_after, d.id limit ${options.slots}
      )
      update checks c set state = 'running', claim = ${claim}::uuid, claimed_until = ${until}, attempts = c.attempts + 1
      from picked p where c.project_id = p.project_id and c.id = p.id
      returning c.project_id, c.id, c.workspace_id, c.prompt_id, c.engine, c.provider, c.location, c.day::text as day, c.sample, c.attempts,
        (select text from prompts p where p.project_id = c.project_id and p.id = c.prompt_id) as prompt`.execute(tx);
    return rows.rows.map((r) => ({
      projectId: r.project_id,
      id: r.id,
      workspaceId: r.workspace_id,
      promptId: r.prompt_id,
      engine: r.engine,
      provider: r.provider,
      location: r.location,
      day: r.day,
      sample: r.sample,
      attempts: r.attempts,
      claim,
      prompt: r.prompt,
    }));
  });
}
